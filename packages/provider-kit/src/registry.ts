import { ReaError } from '@rea/evidence';
import { isDeepProvider, validateProvider } from './provider.js';
import type { DeepProvider, ProbeResult, Provider } from './provider.js';
import { sortCatalog } from './tool.js';
import type { AnyToolContract } from './tool.js';

/** An explicit, sorted set of providers. Built by the composition root; nothing registers itself. */
export interface ProviderRegistry {
  /** Every provider, sorted by id. */
  readonly providers: readonly Provider[];
  /** The deep-analysis providers, sorted by id. */
  readonly deep: readonly DeepProvider[];
  /** The provider with this id, or undefined. */
  get(id: string): Provider | undefined;
  /** The provider with this id; `not_found` (`details.reason: "unknown-provider"`, `provider_id`, `known`) otherwise. */
  require(id: string): Provider;
  /** Every contributed tool, sorted by name (`invalid_request` when two providers contribute the same name). */
  tools(): AnyToolContract[];
}

/**
 * Builds a registry from an explicit list. Each provider is validated ({@link validateProvider});
 * duplicate ids fail with `invalid_request` (`details.reason: "duplicate-provider"`, `provider_id`).
 */
export function createProviderRegistry(list: readonly Provider[]): ProviderRegistry {
  list.forEach(validateProvider);
  const providers = Object.freeze([...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  for (let i = 1; i < providers.length; i += 1) {
    if (providers[i]!.id === providers[i - 1]!.id) {
      throw new ReaError('invalid_request', `Two providers have the id ${providers[i]!.id}.`, {
        details: { reason: 'duplicate-provider', provider_id: providers[i]!.id },
      });
    }
  }
  const byId = new Map(providers.map((p) => [p.id, p]));
  return Object.freeze({
    providers,
    deep: Object.freeze(providers.filter(isDeepProvider)),
    get: (id: string) => byId.get(id),
    require: (id: string) => {
      const provider = byId.get(id);
      if (provider) return provider;
      throw new ReaError('not_found', `No provider has the id ${id}.`, {
        remediation: 'Name one of the providers in details.known.',
        details: { reason: 'unknown-provider', provider_id: id, known: [...byId.keys()] },
      });
    },
    tools: () => sortCatalog(providers.flatMap((p) => [...p.tools()])),
  });
}

/**
 * Probes every deep provider concurrently. A probe that throws or rejects counts as unavailable with
 * its message as the reason. Never starts an engine (probes must not).
 */
export async function probeProviders(
  registry: ProviderRegistry,
  options: { signal?: AbortSignal } = {},
): Promise<Map<string, ProbeResult>> {
  const results = await Promise.all(
    registry.deep.map(async (provider): Promise<[string, ProbeResult]> => {
      try {
        return [provider.id, await provider.probe(options)];
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return [
          provider.id,
          { status: 'unavailable', reason: `probe failed: ${reason}`, remediation: 'Run rea doctor for details.' },
        ];
      }
    }),
  );
  return new Map(results);
}

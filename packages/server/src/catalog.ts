// The catalog of one server: every tool by name, the loaded contracts and the deferred tools, which stay
// facts until the first call of one of them loads them (with their provider).
import { ReaError, isReaError } from '@rea/evidence';
import type { ProviderIdentity } from '@rea/evidence';
import { isDeepProvider, sortCatalog, toolFactsMismatch, validateProvider } from '@rea/provider-kit';
import type { AnyToolContract, Logger, ProviderRegistry } from '@rea/provider-kit';
import type { Catalog, DeferredTools } from './runtime.js';
import { retrying } from './runtime.js';

/** Deferred tools once loaded: their contracts and the provider contributing them (null for extra tools). */
interface Loaded {
  provider: ProviderIdentity | null;
  tools: readonly AnyToolContract[];
}

const labelOf = (group: DeferredTools): string => group.provider ?? 'composition';

function duplicate(name: string): ReaError {
  return new ReaError('invalid_request', `Two tools are named ${name}.`, {
    details: { reason: 'duplicate-tool', tool: name },
  });
}

/** Calls `group.load()`: a failure is logged and becomes `internal` (a ReaError stays what it is). */
async function loadGroup(group: DeferredTools, logger: Logger): Promise<Loaded> {
  try {
    const loaded = await group.load();
    if (!('kind' in loaded)) return { provider: null, tools: loaded as readonly AnyToolContract[] };
    validateProvider(loaded);
    const identity = { id: loaded.id, name: loaded.name, version: loaded.version };
    // A deep provider, or another provider than declared, contributes none of the declared tools.
    return { provider: identity, tools: isDeepProvider(loaded) || loaded.id !== group.provider ? [] : loaded.tools() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    logger.error('deferred tools failed to load', { provider_id: group.provider, message });
    if (isReaError(error)) throw error;
    throw new ReaError('internal', `The tools of ${labelOf(group)} failed to load: ${message}`, {
      details: { reason: 'provider-load-failed', provider_id: group.provider },
      remediation: 'Check the installation (reinstall the package); the next call tries again.',
    });
  }
}

/**
 * Loads `group`, checked against what it was declared to be: its provider's id (or extra tools), and
 * tools with exactly the declared facts and availability check. Anything else is `internal` (the
 * declared facts are stale), logged; like a failed load, the next call tries again.
 */
async function loadDeferred(group: DeferredTools, logger: Logger): Promise<Loaded> {
  const loaded = await loadGroup(group, logger);
  const differing = toolFactsMismatch(group.tools, loaded.tools, group.availability);
  if (differing.length === 0 && (loaded.provider?.id ?? null) === group.provider) return loaded;
  const details = { reason: 'stale-tool-facts', provider_id: group.provider, tools: differing };
  logger.error('the declared tool facts do not match the loaded tools', details);
  throw new ReaError('internal', `The declared tools of ${labelOf(group)} do not match the loaded ones.`, {
    details,
    remediation: 'Regenerate the tool facts from the current tool contracts, or reinstall the package.',
  });
}

/**
 * Builds the catalog of `contracts` (the server's own, the extra tools and the registry's providers'),
 * sorted, plus the `deferred` tools by their facts. Two tools of one name are `invalid_request`
 * (`duplicate-tool`).
 */
export function createCatalog(
  registry: ProviderRegistry,
  contracts: readonly AnyToolContract[],
  deferred: readonly DeferredTools[],
  logger: Logger,
): Catalog {
  let loaded = sortCatalog(contracts);
  const byName = new Map(loaded.map((contract) => [contract.name, contract]));
  const owners = new Map<string, ProviderIdentity>();
  for (const provider of registry.providers) {
    const identity = { id: provider.id, name: provider.name, version: provider.version };
    for (const tool of provider.tools()) owners.set(tool.name, identity);
  }
  const pending = new Map<string, { group: DeferredTools; load: () => Promise<Loaded> }>();
  for (const group of deferred) {
    const load = retrying(() => loadDeferred(group, logger));
    for (const facts of group.tools) {
      if (byName.has(facts.name) || pending.has(facts.name)) throw duplicate(facts.name);
      pending.set(facts.name, { group, load });
    }
  }
  const names = [...byName.keys(), ...pending.keys()].sort();
  const settle = ({ provider, tools }: Loaded): void => {
    const arrived = tools.filter((tool) => pending.has(tool.name));
    if (arrived.length === 0) return;
    for (const tool of arrived) {
      pending.delete(tool.name);
      byName.set(tool.name, tool);
      if (provider) owners.set(tool.name, provider);
    }
    loaded = sortCatalog([...loaded, ...arrived]);
  };
  const catalog: Catalog = {
    registry,
    names,
    get contracts() {
      return loaded;
    },
    has: (name) => byName.has(name) || pending.has(name),
    contract: (name) => byName.get(name),
    deferred: (name) => {
      const entry = pending.get(name);
      if (!entry) return undefined;
      const facts = entry.group.tools.find((tool) => tool.name === name)!;
      return { facts, availability: entry.group.availability ?? null };
    },
    providerOf: (name) => owners.get(name) ?? null,
    async resolve(name) {
      const waiting = pending.get(name);
      if (waiting) settle(await waiting.load());
      return byName.get(name);
    },
    async resolveAll() {
      for (const name of [...pending.keys()]) await catalog.resolve(name);
      return loaded;
    },
  };
  return catalog;
}

import { ReaError } from '@rea/evidence';
import type { DeepProvider, ProbeResult, TargetDescriptor, TargetSupport } from './provider.js';
import type { ChoiceSource, ProviderChoice } from './providerId.js';
import type { ProviderRegistry } from './registry.js';
import { NATIVE_PORT } from './ports.js';

/** One deep-analysis provider as reported by discovery and in `provider_selection` details. */
export interface ProviderCandidate {
  id: string;
  /** Host availability from its probe. */
  available: boolean;
  /** Why it is unavailable or does not support the target; null when neither. */
  reason: string | null;
  /** `unknown` when no target was given or the provider cannot tell. */
  target_support: TargetSupport;
  /** True for the zero-install fallback engine. */
  embedded: boolean;
}

/** Why a selection failed. */
export type SelectionFailure = 'unknown' | 'unavailable' | 'unsupported' | 'ambiguous';

/** A successful selection. */
export interface ProviderSelection {
  provider: DeepProvider;
  /** `auto` whenever the policy chose, whatever asked for `auto`. */
  source: 'argument' | 'environment' | 'auto';
  candidates: ProviderCandidate[];
}

function supportOf(provider: DeepProvider, target: TargetDescriptor | null | undefined): TargetSupport {
  if (!target || !provider.supportsTarget) return 'unknown';
  return provider.supportsTarget(target);
}

/**
 * The deep providers of `port` (default `native`, the port `open_binary` binds), sorted by id, with
 * host availability (from `probes`; a provider without a probe result is unavailable, "not probed")
 * and target support (`unknown` without a target). Starts nothing. This is
 * `binary_session.analysis_provider_candidates`.
 */
export function describeCandidates(
  registry: ProviderRegistry,
  probes: ReadonlyMap<string, ProbeResult>,
  target?: TargetDescriptor | null,
  port: string = NATIVE_PORT,
): ProviderCandidate[] {
  return registry.deep
    .filter((provider) => provider.port === port)
    .map((provider) => {
      const probe = probes.get(provider.id);
      const support = supportOf(provider, target);
      const available = probe?.status === 'ready';
      const reason = !probe
        ? 'not probed'
        : probe.status === 'unavailable'
          ? probe.reason
          : support === 'unsupported'
            ? `does not support ${target!.format}${target!.architecture ? ` (${target!.architecture})` : ''} targets`
            : null;
      return { id: provider.id, available, reason, target_support: support, embedded: provider.embedded === true };
    });
}

/** What to do about each failure (provider_id over MCP is --provider on the command line). */
const REMEDIATION: Readonly<Record<SelectionFailure, string>> = {
  ambiguous: 'Several analysis engines are ready: pass one of the candidate ids as provider_id (--provider).',
  unknown: 'Pass one of the candidate ids in details.candidates as provider_id (--provider), or "auto".',
  unavailable: 'Install or configure the engine (rea doctor says what is missing), or pass another candidate id.',
  unsupported:
    'Pass an executable, library or object file in a format a ready engine reads (details.candidates), or install one that reads this format.',
};

function fail(requested: string, reason: SelectionFailure, message: string, candidates: ProviderCandidate[]): never {
  throw new ReaError('provider_selection', message, {
    remediation: REMEDIATION[reason],
    details: {
      requested,
      reason,
      candidates: candidates.map((c) => ({ ...c })),
    },
  });
}

/** Options for {@link selectProvider}. */
export interface SelectProviderOptions {
  registry: ProviderRegistry;
  /** The parsed choice; null or undefined means `auto`. */
  choice: ProviderChoice | null | undefined;
  /** Where a concrete choice came from. */
  source: ChoiceSource;
  /** The target being opened, when known. */
  target?: TargetDescriptor | null;
  /** Probe results by provider id (see `probeProviders`). */
  probes: ReadonlyMap<string, ProbeResult>;
  /**
   * The port the caller needs (default `native`, the port `open_binary` binds): only its providers
   * are candidates, so a provider of another port never makes `auto` ambiguous, and a concrete id of
   * another port's provider is `unknown` here.
   */
  port?: string;
}

/**
 * The selection policy shared by MCP `provider_id`, CLI `--provider` and REA_ANALYSIS_PROVIDER,
 * within one port (`options.port`, default `native`).
 *
 * A concrete id must name a deep provider of that port (`unknown`), be ready (`unavailable`) and not report the
 * target unsupported (`unsupported`). `auto` picks the single ready external engine whose target
 * support is not `unsupported`; with none, the single ready embedded engine that does not refuse the
 * target; several eligible external engines are `ambiguous`. Failures are `provider_selection` with
 * details { requested, reason, candidates }, except a target of format `unknown` (no binary's magic:
 * an empty or text file) that every ready provider refuses: `unsupported_target`.
 */
export function selectProvider(options: SelectProviderOptions): ProviderSelection {
  const { registry, choice, source, target, probes, port = NATIVE_PORT } = options;
  const candidates = describeCandidates(registry, probes, target, port);
  const eligible = (c: ProviderCandidate) => c.available && c.target_support !== 'unsupported';
  if (choice && choice.kind === 'concrete') {
    const candidate = candidates.find((c) => c.id === choice.id);
    if (!candidate) {
      fail(choice.id, 'unknown', `No deep-analysis provider of the ${port} port has the id ${choice.id}.`, candidates);
    }
    if (!candidate.available) {
      fail(choice.id, 'unavailable', `Provider ${choice.id} is unavailable: ${candidate.reason}.`, candidates);
    }
    if (candidate.target_support === 'unsupported') {
      fail(choice.id, 'unsupported', `Provider ${choice.id} ${candidate.reason}.`, candidates);
    }
    return { provider: registry.get(choice.id) as DeepProvider, source, candidates };
  }
  const external = candidates.filter((c) => !c.embedded && eligible(c));
  if (external.length > 1) {
    const ids = external.map((c) => c.id).join(', ');
    fail('auto', 'ambiguous', `Several analysis engines are ready (${ids}); choose one with provider_id.`, candidates);
  }
  const embedded = candidates.filter((c) => c.embedded && eligible(c));
  const picked = external[0] ?? (embedded.length === 1 ? embedded[0] : undefined);
  if (!picked) {
    if (embedded.length > 1) {
      const ids = embedded.map((c) => c.id).join(', ');
      fail(
        'auto',
        'ambiguous',
        `Several embedded engines are ready (${ids}); choose one with provider_id.`,
        candidates,
      );
    }
    const refused = candidates.some((c) => c.available && c.target_support === 'unsupported');
    if (refused && target?.format === 'unknown') {
      // Not a choice of engine: the file is no binary at all (empty, text, an unknown format).
      throw new ReaError(
        'unsupported_target',
        'The target is not a binary any analysis provider reads: its first bytes match no executable, library or object format.',
        {
          remediation:
            'Pass an executable, library or object file (ELF, PE or Mach-O); rea analyze <path> says what a file is.',
          details: { format: 'unknown', reason: 'unknown-format', candidates: candidates.map((c) => ({ ...c })) },
        },
      );
    }
    fail(
      'auto',
      refused ? 'unsupported' : 'unavailable',
      refused
        ? `No ready analysis provider supports this target${target?.format === undefined ? '' : ` (format ${target.format})`}.`
        : 'No analysis provider is ready on this host.',
      candidates,
    );
  }
  return { provider: registry.get(picked.id) as DeepProvider, source: 'auto', candidates };
}

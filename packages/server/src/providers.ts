import { ReaError } from '@rea/evidence';
import type { AnalysisProfile, JsonObject } from '@rea/evidence';
import type { ActiveTarget, AnyToolContract, ProgressSink } from '@rea/provider-kit';

// The provider seam as the server consumes it. It is structurally the Provider interface of
// @rea/provider-kit: the composition root passes those objects straight through.

/** A provider's host readiness: ready, or unavailable with a reason and a remediation. Never starts an engine. */
export type ProbeResult =
  { status: 'ready'; version?: string } | { status: 'unavailable'; reason: string; remediation: string };

/** One ownership observation of a process a provider started (see the supervisor of @rea/provider-kit). */
export type LineageSnapshot = JsonObject;

/** The owned-process supervisor handed to a deep provider when it opens a target. */
export interface SessionSupervisor {
  /** Ownership observations of every process started so far (empty until one starts). */
  snapshots(): LineageSnapshot[];
}

/** An open deep-analysis session. */
export interface DeepSession {
  /** The concrete engine version. */
  version: string;
  analysis_profile: AnalysisProfile;
  /** The provider's own session object; its tools narrow it. */
  session: unknown;
  /** Drains and closes; throws `cleanup_incomplete` when owned resources remain. */
  close(signal: AbortSignal): Promise<void>;
}

/** What a deep provider receives when it opens a target. */
export interface OpenOptions {
  signal: AbortSignal;
  supervisor: SessionSupervisor;
  runId: string;
  progress: ProgressSink;
  config: unknown;
}

/** A provider as handed to the server by the composition root. */
export interface Provider {
  readonly id: string;
  readonly name: string;
  /** `deep`: binds to an open target; `tools`: contributes target-free tools only. */
  readonly kind: 'deep' | 'tools';
  /** True for an engine embedded in REA (needs no install): `auto` falls back to it. */
  readonly embedded?: boolean;
  probe(): ProbeResult | Promise<ProbeResult>;
  tools(): readonly AnyToolContract[];
  /** Whether the provider supports `target`; omitted means unknown until opened. */
  supportsTarget?(target: ActiveTarget): boolean | 'unknown' | Promise<boolean | 'unknown'>;
  open?(target: ActiveTarget, options: OpenOptions): Promise<DeepSession>;
}

/** How a provider was chosen. */
export type SelectionSource = 'argument' | 'environment' | 'auto';

/** One candidate as reported by selection failures and `binary_session`. */
export interface CandidateReport {
  id: string;
  name: string;
  embedded: boolean;
  available: boolean;
  reason: string | null;
  remediation: string | null;
  target_support: 'supported' | 'unsupported' | 'unknown';
}

const PROVIDER_ID = /^(auto|[a-z][a-z0-9-]{0,63})$/;

/** Parses a provider choice (`provider_id`, `--provider`, REA_ANALYSIS_PROVIDER): a concrete id or `auto`. */
export function parseProviderChoice(value: string, variable = 'provider_id'): string {
  const trimmed = value.trim().toLowerCase();
  if (!PROVIDER_ID.test(trimmed)) {
    throw new ReaError(
      'invalid_request',
      `${variable} must be "auto" or a provider id, not ${JSON.stringify(value)}.`,
      {
        details: { reason: 'invalid-provider-choice', value },
      },
    );
  }
  return trimmed;
}

async function candidateOf(provider: Provider, target: ActiveTarget | null): Promise<CandidateReport> {
  let probe: ProbeResult;
  try {
    probe = await provider.probe();
  } catch (error) {
    probe = {
      status: 'unavailable',
      reason: `probe failed: ${error instanceof Error ? error.message : String(error)}`,
      remediation: 'Check the provider installation.',
    };
  }
  let support: CandidateReport['target_support'] = 'unknown';
  if (target && provider.supportsTarget) {
    try {
      const answer = await provider.supportsTarget(target);
      support = answer === 'unknown' ? 'unknown' : answer ? 'supported' : 'unsupported';
    } catch {
      support = 'unknown';
    }
  }
  return {
    id: provider.id,
    name: provider.name,
    embedded: provider.embedded === true,
    available: probe.status === 'ready',
    reason: probe.status === 'ready' ? null : probe.reason,
    remediation: probe.status === 'ready' ? null : probe.remediation,
    target_support: support,
  };
}

/** Every deep-analysis candidate, sorted by id; target support stays unknown without a target. */
export async function describeCandidates(
  providers: readonly Provider[],
  target: ActiveTarget | null,
): Promise<CandidateReport[]> {
  const deep = providers.filter((p) => p.kind === 'deep').sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return Promise.all(deep.map((p) => candidateOf(p, target)));
}

function selectionError(requested: string, reason: string, message: string, candidates: CandidateReport[]): ReaError {
  return new ReaError('provider_selection', message, {
    details: {
      requested,
      reason,
      candidates: candidates.map((c) => ({
        id: c.id,
        available: c.available,
        reason: c.reason ?? (c.target_support === 'unsupported' ? 'target unsupported' : null),
        target_support: c.target_support,
      })),
    },
  });
}

/**
 * The selection policy: a concrete id must be known, ready and not known to be unsupported; `auto`
 * picks the single ready external engine that does not refuse the target, falls back to a ready
 * embedded engine when none is ready, and is `provider_selection` (`ambiguous`) when several are.
 */
export async function selectProvider(
  providers: readonly Provider[],
  choice: string,
  target: ActiveTarget,
): Promise<Provider> {
  const candidates = await describeCandidates(providers, target);
  const byId = new Map(providers.filter((p) => p.kind === 'deep').map((p) => [p.id, p]));
  if (choice !== 'auto') {
    const candidate = candidates.find((c) => c.id === choice);
    if (!candidate) {
      throw selectionError(choice, 'unknown', `No deep-analysis provider is named ${choice}.`, candidates);
    }
    if (!candidate.available) {
      throw selectionError(choice, 'unavailable', `Provider ${choice} is unavailable: ${candidate.reason}`, candidates);
    }
    if (candidate.target_support === 'unsupported') {
      throw selectionError(choice, 'unsupported', `Provider ${choice} does not support this target.`, candidates);
    }
    return byId.get(choice)!;
  }
  const usable = candidates.filter((c) => c.available && c.target_support !== 'unsupported');
  const external = usable.filter((c) => !c.embedded);
  if (external.length > 1) {
    throw selectionError(
      'auto',
      'ambiguous',
      `Several analysis engines are ready (${external.map((c) => c.id).join(', ')}); choose one with provider_id.`,
      candidates,
    );
  }
  const chosen = external[0] ?? usable.find((c) => c.embedded);
  if (!chosen) {
    throw selectionError('auto', 'unavailable', 'No analysis provider is ready for this target.', candidates);
  }
  return byId.get(chosen.id)!;
}

import { ReaError } from '@rea/evidence';
import type { Coverage, JsonObject, JsonValue, Limitation, Location } from '@rea/evidence';
import type { SessionView } from './context.js';
import type { Observation } from './tool.js';

/** The fields a tool states itself; the rest come from the session. */
export interface SessionObservationFields<R> {
  parameters: JsonObject;
  normalized_result: R;
  /** Default null. */
  raw_result?: JsonValue | null;
  /** Default "observed". */
  confidence?: 'observed' | 'derived' | 'inferred';
  /** Default none. */
  limitations?: Limitation[];
  /** Default complete. */
  coverage?: Coverage;
  /** Default none. */
  locations?: Location[];
  /** Default none. */
  evidence_links?: string[];
}

/**
 * An observation about the session's active target by its bound provider: `subject` (format, sha256,
 * size — never the path), `provider` and `analysis_profile` come from the session; omitted fields
 * take their defaults. Throws `target_unavailable` (`details.reason: "no-active-target"`) when no target
 * is open with a bound provider.
 */
export function createSessionObservation<R>(session: SessionView, fields: SessionObservationFields<R>): Observation<R> {
  const { target, binding } = session;
  if (!target || !binding) {
    throw new ReaError('target_unavailable', 'No target is open with an analysis provider.', {
      remediation: 'Call open_binary first.',
      details: { reason: 'no-active-target' },
    });
  }
  return {
    subject: { format: target.format, sha256: target.sha256, size: target.size },
    provider: binding.provider,
    analysis_profile: binding.analysis_profile,
    parameters: fields.parameters,
    normalized_result: fields.normalized_result,
    raw_result: fields.raw_result ?? null,
    confidence: fields.confidence ?? 'observed',
    limitations: fields.limitations ?? [],
    coverage: fields.coverage ?? { status: 'complete', reasons: [] },
    locations: fields.locations ?? [],
    evidence_links: fields.evidence_links ?? [],
  };
}

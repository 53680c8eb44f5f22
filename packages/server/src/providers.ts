import type { ProviderIdentity } from '@rea/evidence';
import type { LineageObservation } from '@rea/provider-kit';

/**
 * The ownership observations of one tool call's supervisor: taken live while it runs, then just
 * before and just after its close.
 */
export interface CallLineageSnapshot {
  /** The provider that contributed the tool; null for the server's own tools. */
  provider: ProviderIdentity | null;
  tool: string;
  /** The session's run when the call started, or null without an open target. */
  run_id: string | null;
  observations: LineageObservation[];
}

/** The ownership observations of one provider session, kept as history for `binary_session`. */
export interface LineageSnapshot {
  provider: ProviderIdentity;
  run_id: string;
  observations: LineageObservation[];
}

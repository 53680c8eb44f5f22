import type { ProviderIdentity } from '@rea/evidence';
import type { LineageObservation } from '@rea/provider-kit';

/** The ownership observations of one provider session, kept as history for `binary_session`. */
export interface LineageSnapshot {
  provider: ProviderIdentity;
  run_id: string;
  observations: LineageObservation[];
}

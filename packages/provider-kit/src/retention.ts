import { ReaError, sealAnalysisView, sealEvidenceAsync, selectAnalysisView, throwIfAborted } from '@rea/evidence';
import type { EvidenceRecord, SummaryView, UnsignedEvidence } from '@rea/evidence';
import type { LedgerAccess } from './context.js';
import type { Observation } from './tool.js';

/**
 * Refuses `detail: "summary"` up front when there is no session ledger to retain the complete record
 * the summary stands for: `capability_unavailable` with `details.capability: "session-retention"`.
 */
export function requireRetention(ledger: LedgerAccess | null): asserts ledger is LedgerAccess {
  if (ledger !== null) return;
  throw new ReaError('capability_unavailable', 'detail "summary" needs a session that retains Evidence.', {
    details: { capability: 'session-retention', alternatives: [] },
    remediation: 'Call with detail "complete", or through a server session that retains Evidence.',
  });
}

/**
 * `detail: "summary"`: seals `complete` — exactly the observation the same call with `detail:
 * "complete"` answers, so the retained record has that answer's id — retains it in `ledger`, and
 * returns the `inspect_analysis_view` summary of it. The summary's `normalized_result.parent_evidence_id`
 * and `evidence_links` name the retained record. The record is sealed, and verified again by the
 * ledger, a slice at a time, and retained only once `signal` can no longer cancel the call, so a
 * cancelled call leaves nothing in the ledger.
 */
export async function retainAndSummarize(
  operation: string,
  complete: Omit<UnsignedEvidence<unknown>, 'operation'>,
  ledger: LedgerAccess,
  signal: AbortSignal,
): Promise<Observation<SummaryView>> {
  const parent = (await sealEvidenceAsync({ ...complete, operation }, signal)) as EvidenceRecord;
  throwIfAborted(signal, 'publication');
  if (ledger.retainAsync !== undefined) await ledger.retainAsync(parent, signal);
  else ledger.retain(parent);
  const view = sealAnalysisView(parent, selectAnalysisView(parent, { view: 'summary' }));
  const { evidence_id: _id, schema_version: _version, ...observation } = view;
  return { ...observation, operation: 'inspect_analysis_view' } as Observation<SummaryView>;
}

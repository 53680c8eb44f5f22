import { sealEvidence } from './evidence.js';
import type { EvidenceRecord, ProviderIdentity } from './evidence.js';
import type { JsonValue } from './json.js';
import { ReaError } from './reaError.js';
import { viewParameters } from './views.js';
import type { AnalysisView } from './views.js';

/** Options for {@link sealAnalysisView}. */
export interface SealAnalysisViewOptions {
  /** Who produced the view; defaults to the parent's provider, whose facts the view selects. */
  provider?: ProviderIdentity;
}

/**
 * Seals a view of `parent` as derived Evidence: operation `inspect_analysis_view`, the parent's
 * subject, analysis profile and limitations, confidence `derived`, the view's coverage,
 * `evidence_links: [parent id]`, the request (defaults applied) plus `parent_evidence_id` as
 * parameters, and the view itself (which names `parent_evidence_id`) as `normalized_result`.
 * The same view of the same parent always has the same id. A view of another record is `invalid_request`.
 */
export function sealAnalysisView(
  parent: EvidenceRecord<unknown>,
  view: AnalysisView,
  options: SealAnalysisViewOptions = {},
): EvidenceRecord<AnalysisView> {
  if (view.parent_evidence_id !== parent.evidence_id) {
    throw new ReaError('invalid_request', 'The view was not selected from this parent record.', {
      details: { reason: 'parent-mismatch', declared: view.parent_evidence_id, parent: parent.evidence_id },
    });
  }
  const sealed = sealEvidence<JsonValue>({
    operation: 'inspect_analysis_view',
    subject: parent.subject,
    provider: options.provider ?? parent.provider,
    analysis_profile: parent.analysis_profile,
    parameters: { parent_evidence_id: parent.evidence_id, ...viewParameters(view) },
    normalized_result: view as unknown as JsonValue,
    raw_result: null,
    confidence: 'derived',
    limitations: parent.limitations,
    coverage: view.coverage,
    locations: [],
    evidence_links: [parent.evidence_id],
  });
  return sealed as unknown as EvidenceRecord<AnalysisView>;
}

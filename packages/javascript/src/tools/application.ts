// Application Evidence as the tools on it accept it: a retained reference (to the analysis, or to the
// summary that names it) or the complete record inline.
import { z } from 'zod';
import { JsonObjectSchema, ReaError, RetainedEvidenceRefSchema, parseEvidence } from '@rea/evidence';
import type { Coverage, EvidenceRecord } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import { JavascriptApplicationSchema } from '../schemas.js';
import type { JavascriptApplication } from '../schemas.js';
import { findModules } from '../analysis/lookup.js';
import type { FoundModule } from '../analysis/lookup.js';

/** The `application` input of the tools on application Evidence. */
export const ApplicationInputSchema = z
  .union([RetainedEvidenceRefSchema, JsonObjectSchema])
  .describe(
    'analyze_javascript_application Evidence: a retained reference (the analysis or its detail "summary" answer) or inline.',
  );

function missingLedger(evidenceId: string): ReaError {
  return new ReaError(
    'not_found',
    `Retained Evidence ${evidenceId} cannot be resolved: this host keeps no session ledger.`,
    {
      details: { reason: 'missing', evidence_id: evidenceId },
      remediation: 'Pass the complete analyze_javascript_application Evidence inline.',
    },
  );
}

/**
 * The summary `detail: "summary"` answers with stands for its retained parent: an
 * `inspect_analysis_view` summary of an application analysis resolves to that analysis.
 */
function parentOfSummary(record: EvidenceRecord, context: ToolContext): EvidenceRecord {
  const view = record.normalized_result as { view?: unknown; parent_evidence_id?: unknown; parent_operation?: unknown };
  if (
    record.operation !== 'inspect_analysis_view' ||
    view?.view !== 'summary' ||
    view.parent_operation !== 'analyze_javascript_application' ||
    typeof view.parent_evidence_id !== 'string'
  ) {
    return record;
  }
  if (context.ledger === null) throw missingLedger(view.parent_evidence_id);
  return context.ledger.resolve({ kind: 'retained-evidence', evidence_id: view.parent_evidence_id });
}

/**
 * Resolves `value` to a complete analyze_javascript_application record and its result, or throws
 * `invalid_request` (another operation) or `not_found` (no ledger, or not retained); `input` names the input
 * field the record was given as, in the errors of a record that is not valid Evidence.
 */
export function application(
  value: unknown,
  context: ToolContext,
  input: string,
): { record: EvidenceRecord; app: JavascriptApplication } {
  const ref = RetainedEvidenceRefSchema.safeParse(value);
  let record: EvidenceRecord;
  if (ref.success) {
    if (context.ledger === null) throw missingLedger(ref.data.evidence_id);
    record = parentOfSummary(context.ledger.resolve(ref.data), context);
  } else {
    record = parentOfSummary(parseEvidence(value, input), context);
  }
  const parsed = JavascriptApplicationSchema.safeParse(record.normalized_result);
  if (record.operation !== 'analyze_javascript_application' || !parsed.success) {
    throw new ReaError(
      'invalid_request',
      `Evidence ${record.evidence_id} is not a complete analyze_javascript_application result.`,
      {
        details: { reason: 'wrong-operation', operation: record.operation, evidence_id: record.evidence_id },
        remediation:
          'Pass the Evidence returned by analyze_javascript_application (or its retained reference, or the summary that names it).',
      },
    );
  }
  return { record, app: parsed.data };
}

/** Coverage of a result derived from `records`: partial when any of them is, or when `own` has reasons. */
export function derivedCoverage(records: EvidenceRecord[], own: string[]): Coverage {
  const reasons = [
    ...own,
    ...records.flatMap((r, i) =>
      r.coverage.reasons.map((reason) => `${records.length > 1 ? `application ${i + 1}` : 'application'}: ${reason}`),
    ),
  ];
  const partial = own.length > 0 || records.some((r) => r.coverage.status === 'partial');
  return partial ? { status: 'partial', reasons } : { status: 'complete', reasons: [] };
}

/**
 * The one module of `app` that `reference` names (node id, path, bundled id or source name). Throws
 * `not_found` when none does and `invalid_request` (`ambiguous-module`, with the candidates) when
 * several do.
 */
export function oneModule(app: JavascriptApplication, reference: string, evidenceId: string): FoundModule {
  const found = findModules(app, reference);
  if (found.length === 1) return found[0]!;
  if (found.length === 0) {
    const contradicted = app.integrity_contradictions.find(
      (c) => c.path === reference || `file:${c.path}` === reference,
    );
    if (contradicted !== undefined) throw notAnalyzed(contradicted, evidenceId);
    throw new ReaError('not_found', `No module of ${evidenceId} is named ${JSON.stringify(reference)}.`, {
      details: { reason: 'module-not-found', module: reference, evidence_id: evidenceId },
      remediation: 'Name a module by its node_id, path or bundled module id, as the analysis lists them.',
    });
  }
  throw new ReaError(
    'invalid_request',
    `${found.length} modules of ${evidenceId} are named ${JSON.stringify(reference)}.`,
    {
      details: { reason: 'ambiguous-module', module: reference, candidates: found.slice(0, 20).map((m) => m.node_id) },
      remediation: 'Pass one of the candidate node_id values instead.',
    },
  );
}

/**
 * The error for a module the analysis left out because its bytes contradict their declared integrity
 * (an application analyzed with integrity_policy "record-and-continue"): it is there, but has no facts.
 */
export function notAnalyzed(
  contradiction: JavascriptApplication['integrity_contradictions'][number],
  evidenceId: string,
): ReaError {
  return new ReaError(
    'artifact_integrity_mismatch',
    `The module ${contradiction.path} of ${evidenceId} was not analyzed: its bytes contradict their declared ${contradiction.algorithm} (declared ${contradiction.declared}, observed ${contradiction.observed}).`,
    {
      details: {
        reason: 'module-not-analyzed',
        path: contradiction.path,
        evidence_id: evidenceId,
        algorithm: contradiction.algorithm,
        declared: contradiction.declared,
        observed: contradiction.observed,
      },
      remediation: 'Obtain intact bytes of the application and analyze it again, or compare another module.',
    },
  );
}

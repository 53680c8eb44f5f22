// resources/read of retained Evidence, on the call path: it needs the connection's ledger, which exists
// only once a tool call has loaded the call path, and the response budget.
import { canonicalJsonAsync } from '@rea/evidence';
import type { SessionLedger } from '@rea/evidence';
import { ENVELOPE_RESERVE_BYTES } from '@rea/provider-kit';
import { contentBudget, measureResponseAsync } from './budget.js';
import { RpcError } from './frames.js';
import { evidenceIdOf, missingEvidence } from './resources.js';

/** JSON-RPC server error: the record exists but does not fit one response. */
export const RESOURCE_TOO_LARGE = -32000;

/**
 * Answers resources/read of `rea://evidence/<id>` from `ledger`: the record as canonical JSON. A URI of
 * another shape, or an id this connection does not hold, is -32602 (the latter naming the id); a record above
 * the response budget is -32000 naming the tools that page or export it. A large record is measured and
 * written a slice at a time, with turns of the event loop, so that other requests are served meanwhile.
 */
export async function readEvidence(
  ledger: SessionLedger,
  params: unknown,
  maxResponseBytes: number,
): Promise<Record<string, unknown>> {
  const { uri, evidenceId } = evidenceIdOf(params);
  const record = /^ev_[0-9a-f]{64}$/.test(evidenceId) ? ledger.get(evidenceId) : undefined;
  if (!record) throw missingEvidence(uri, evidenceId);
  // Measured before the text is built, like a tool result: a record above the budget is never serialized.
  const limit = contentBudget(maxResponseBytes, ENVELOPE_RESERVE_BYTES);
  if (!(await measureResponseAsync(record, limit, false, undefined)).fits) {
    throw new RpcError(
      RESOURCE_TOO_LARGE,
      `Evidence ${evidenceId} does not fit one response (${limit} bytes). Page it with inspect_analysis_view ` +
        'or write it to a file with export_evidence_bundle.',
      { uri, evidence_id: evidenceId, limit, resource: 'transport' },
    );
  }
  const text = await canonicalJsonAsync(record);
  return { contents: [{ uri, mimeType: 'application/json', text }] };
}

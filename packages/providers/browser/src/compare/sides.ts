import type { z } from 'zod';
import { ReaError, RetainedEvidenceRefSchema } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';

/** One side of a comparison: its capture, and the retained record it came from (if any). */
export interface Side<T> {
  value: T;
  evidenceId: string | null;
}

/**
 * Resolves one side: an inline capture as given, or a retained reference to Evidence of `operation`
 * whose `normalized_result` is that capture.
 */
export function resolveSide<S extends z.ZodType>(
  value: unknown,
  schema: S,
  operation: string,
  field: string,
  context: ToolContext,
): Side<z.output<S>> {
  const ref = RetainedEvidenceRefSchema.safeParse(value);
  if (!ref.success) return { value: schema.parse(value), evidenceId: null };
  if (context.ledger === null) {
    throw new ReaError(
      'not_found',
      `Retained Evidence ${ref.data.evidence_id} cannot be resolved: this host keeps no session ledger.`,
      {
        details: { reason: 'missing', evidence_id: ref.data.evidence_id, field },
        remediation: `Pass the complete ${operation} normalized_result inline in ${field}.`,
      },
    );
  }
  const record = context.ledger.resolve(ref.data);
  const parsed = schema.safeParse(record.normalized_result);
  if (record.operation !== operation || !parsed.success) {
    throw new ReaError(
      'invalid_request',
      `${field} names Evidence ${record.evidence_id} of ${record.operation}, not a complete ${operation} result.`,
      {
        details: { reason: 'wrong-operation', field, operation: record.operation, evidence_id: record.evidence_id },
        remediation: `Pass a retained reference to ${operation} Evidence, or its normalized_result inline.`,
      },
    );
  }
  return { value: parsed.data, evidenceId: record.evidence_id };
}

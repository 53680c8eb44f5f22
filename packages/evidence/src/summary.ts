import { z } from 'zod';
import { EvidenceIdSchema, Sha256HexSchema } from './evidence.js';
import type { EvidenceRecord, ProviderIdentity } from './evidence.js';
import { ReaError } from './reaError.js';

/**
 * Exact-match filters over record summaries. Every given filter must match; an omitted filter matches
 * everything. Shared by the session ledger, `get_evidence_bundle` and `inspect-evidence-bundle`.
 */
export const SummaryFiltersSchema = z
  .strictObject({
    evidence_id: EvidenceIdSchema.optional().describe('Only the record with exactly this id.'),
    operation: z.string().min(1).optional().describe('Only records of this operation, e.g. "analyze_function".'),
    target_sha256: Sha256HexSchema.optional().describe('Only records whose subject has this SHA-256.'),
    analysis_profile_digest: Sha256HexSchema.optional().describe('Only records made under this analysis profile.'),
    procedure_address: z
      .string()
      .regex(/^(?:[A-Za-z0-9%._~-]+:)?0x[0-9a-f]+$/, 'an address as records give it: lowercase 0x hex, e.g. "0x401126"')
      .optional()
      .describe('Only records about the procedure at this address (lowercase 0x hex, e.g. "0x401126").'),
  })
  .describe('Exact-match filters; all given filters must match.');
/** Exact-match summary filters; see {@link SummaryFiltersSchema}. */
export type SummaryFilters = z.infer<typeof SummaryFiltersSchema>;

/** One record described without its payload. */
export interface EvidenceSummary {
  evidence_id: string;
  operation: string;
  /** SHA-256 of the subject, or null for target-free operations. */
  target_sha256: string | null;
  /** Format of the subject, or null for target-free operations. */
  target_format: string | null;
  provider: ProviderIdentity;
  /** Digest of the analysis profile, or null when the record has none. */
  analysis_profile_digest: string | null;
  /** Address of the procedure the record is about, or null when it is not about one procedure. */
  procedure_address: string | null;
  /** Size of the record's canonical JSON in bytes. */
  bytes: number;
  /** The ledger and bundles keep complete records; a summary only leaves the payload out. */
  retention: 'complete-record';
}

function stringAt(value: unknown, key: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const found = (value as Record<string, unknown>)[key];
  return typeof found === 'string' ? found : null;
}

/**
 * The procedure address a record is about: `normalized_result.procedure.address` when that is a
 * string, else `normalized_result.address` when that is a string, else null.
 */
export function procedureAddressOf(record: EvidenceRecord<unknown>): string | null {
  const result = record.normalized_result;
  const procedure =
    typeof result === 'object' && result !== null ? (result as Record<string, unknown>)['procedure'] : null;
  return stringAt(procedure, 'address') ?? stringAt(result, 'address');
}

/** The summary of `record`; `byteSize` is the size of its canonical JSON, measured by the caller. */
export function summarizeEvidence(record: EvidenceRecord<unknown>, byteSize: number): EvidenceSummary {
  return {
    evidence_id: record.evidence_id,
    operation: record.operation,
    target_sha256: record.subject?.sha256 ?? null,
    target_format: record.subject?.format ?? null,
    provider: { id: record.provider.id, name: record.provider.name, version: record.provider.version },
    analysis_profile_digest: record.analysis_profile?.digest ?? null,
    procedure_address: procedureAddressOf(record),
    bytes: byteSize,
    retention: 'complete-record',
  };
}

/** True when `summary` matches every filter given in `filters`. */
export function matchesSummaryFilters(summary: EvidenceSummary, filters: SummaryFilters = {}): boolean {
  return (
    (filters.evidence_id === undefined || summary.evidence_id === filters.evidence_id) &&
    (filters.operation === undefined || summary.operation === filters.operation) &&
    (filters.target_sha256 === undefined || summary.target_sha256 === filters.target_sha256) &&
    (filters.analysis_profile_digest === undefined ||
      summary.analysis_profile_digest === filters.analysis_profile_digest) &&
    (filters.procedure_address === undefined || summary.procedure_address === filters.procedure_address)
  );
}

/** Validates filters, refusing unknown keys and malformed values with `invalid_request` (issue paths). */
export function parseSummaryFilters(filters: unknown): SummaryFilters {
  const parsed = SummaryFiltersSchema.safeParse(filters ?? {});
  if (parsed.success) return parsed.data;
  throw new ReaError('invalid_request', 'The summary filters are malformed.', {
    details: {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
    },
  });
}

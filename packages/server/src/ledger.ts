import { ReaError, writeCanonicalJson } from '@rea/evidence';
import type { EvidenceRecord, JsonValue, RetainedEvidenceRef } from '@rea/evidence';

/** One retained record without its payload. */
export interface EvidenceSummary {
  evidence_id: string;
  operation: string;
  target_sha256: string | null;
  provider: { id: string; name: string; version: string };
  analysis_profile_digest: string | null;
  procedure_address: string | null;
  bytes: number;
  retention: 'complete-record';
}

/** Exact-match filters over summaries. */
export interface SummaryFilters {
  evidence_id?: string | undefined;
  operation?: string | undefined;
  target_sha256?: string | undefined;
  analysis_profile_digest?: string | undefined;
  procedure_address?: string | undefined;
}

/** A connection's Evidence ledger. */
export interface SessionLedger {
  /** Retains `record`; identical records are idempotent. `resource_constraint` (memory) past a bound. */
  retain(record: EvidenceRecord): void;
  get(evidenceId: string): EvidenceRecord | undefined;
  /** The record for a reference; `not_found` with `details.reason: "missing"` and the exact id. */
  resolve(ref: RetainedEvidenceRef): EvidenceRecord;
  /** Records in retention order. */
  list(): EvidenceRecord[];
  /** Drops every record; returns how many there were. */
  clear(): number;
  summaries(filters?: SummaryFilters): EvidenceSummary[];
  size(): { records: number; bytes: number };
}

function byteLength(value: unknown): number {
  let bytes = 0;
  writeCanonicalJson(value, (chunk) => {
    bytes += Buffer.byteLength(chunk, 'utf8');
  });
  return bytes;
}

function procedureAddress(result: JsonValue): string | null {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
  const procedure = result['procedure'];
  if (procedure && typeof procedure === 'object' && !Array.isArray(procedure)) {
    const address = procedure['address'];
    if (typeof address === 'string') return address;
  }
  const address = result['address'];
  return typeof address === 'string' ? address : null;
}

/** A ledger bounded by record count and total canonical bytes; it never evicts silently. */
export function createSessionLedger(options: { maxRecords: number; maxBytes: number }): SessionLedger {
  const records = new Map<string, { record: EvidenceRecord; bytes: number }>();
  let total = 0;
  const summaryOf = (record: EvidenceRecord, bytes: number): EvidenceSummary => ({
    evidence_id: record.evidence_id,
    operation: record.operation,
    target_sha256: record.subject?.sha256 ?? null,
    provider: { ...record.provider },
    analysis_profile_digest: record.analysis_profile?.digest ?? null,
    procedure_address: procedureAddress(record.normalized_result),
    bytes,
    retention: 'complete-record',
  });
  return {
    retain(record) {
      if (records.has(record.evidence_id)) return;
      const bytes = byteLength(record);
      if (records.size + 1 > options.maxRecords || total + bytes > options.maxBytes) {
        throw new ReaError('resource_constraint', 'The session ledger is full.', {
          details: {
            resource: 'memory',
            limit: { records: options.maxRecords, bytes: options.maxBytes },
            observed: { records: records.size + 1, bytes: total + bytes },
            reported_limits: { max_records: options.maxRecords, max_bytes: options.maxBytes },
          },
          remediation: 'Export the bundle, then close_binary to clear the ledger.',
        });
      }
      records.set(record.evidence_id, { record, bytes });
      total += bytes;
    },
    get: (id) => records.get(id)?.record,
    resolve(ref) {
      const found = records.get(ref.evidence_id);
      if (!found) {
        throw new ReaError('not_found', `Evidence ${ref.evidence_id} is not retained by this session.`, {
          details: { reason: 'missing', evidence_id: ref.evidence_id },
        });
      }
      return found.record;
    },
    list: () => [...records.values()].map((entry) => entry.record),
    clear() {
      const count = records.size;
      records.clear();
      total = 0;
      return count;
    },
    summaries(filters = {}) {
      return [...records.values()]
        .map(({ record, bytes }) => summaryOf(record, bytes))
        .filter(
          (s) =>
            (filters.evidence_id === undefined || s.evidence_id === filters.evidence_id) &&
            (filters.operation === undefined || s.operation === filters.operation) &&
            (filters.target_sha256 === undefined || s.target_sha256 === filters.target_sha256) &&
            (filters.analysis_profile_digest === undefined ||
              s.analysis_profile_digest === filters.analysis_profile_digest) &&
            (filters.procedure_address === undefined || s.procedure_address === filters.procedure_address),
        );
    },
    size: () => ({ records: records.size, bytes: total }),
  };
}

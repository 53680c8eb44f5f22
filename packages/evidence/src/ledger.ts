import { RetainedEvidenceRefSchema, verifyEvidence, verifyEvidenceAsync } from './evidence.js';
import type { EvidenceRecord, RetainedEvidenceRef } from './evidence.js';
import { exportBundle } from './exportBundle.js';
import type { ExportBundleOptions, ExportBundleResult } from './exportBundle.js';
import { importBundle } from './importBundle.js';
import type { ImportBundleOptions } from './importBundle.js';
import { ReaError, throwIfAborted } from './reaError.js';
import { matchesSummaryFilters, parseSummaryFilters, summarizeEvidence } from './summary.js';
import type { EvidenceSummary, SummaryFilters } from './summary.js';

/** Bounds of a session ledger. */
export interface SessionLedgerOptions {
  /** Most records retained at once (default {@link DEFAULT_LEDGER_MAX_RECORDS}). */
  maxRecords?: number;
  /** Most canonical JSON bytes retained at once (default {@link DEFAULT_LEDGER_MAX_BYTES}). */
  maxBytes?: number;
}

/** Default record bound of a session ledger. */
export const DEFAULT_LEDGER_MAX_RECORDS = 10_000;
/**
 * Default byte bound of a session ledger: 256 MiB of canonical JSON. Records live as JS objects, which
 * take a few times their canonical size in the heap; keep the bound well below the heap limit.
 */
export const DEFAULT_LEDGER_MAX_BYTES = 256 * 1024 * 1024;

/** The outcome of {@link SessionLedger.merge}. */
export interface LedgerMergeResult {
  /** Ids newly retained, in input order. */
  added: string[];
  /** Ids that were already retained (identical records are idempotent), each once, in input order. */
  already_present: string[];
}

/**
 * The Evidence records of one session (one MCP connection or one CLI invocation), in insertion order,
 * bounded by record count and bytes. It never evicts: a record a caller may still reference stays
 * until {@link SessionLedger.clear}. Structurally satisfies `LedgerAccess` of `@rea/provider-kit`.
 */
export interface SessionLedger {
  readonly maxRecords: number;
  readonly maxBytes: number;
  /** Number of retained records. */
  readonly size: number;
  /** Total canonical JSON bytes of the retained records. */
  readonly bytes: number;
  /**
   * Verifies and retains `record`, returning the retained record. Retaining an id already present
   * returns the earlier record and changes nothing. A record that would exceed either bound is
   * refused with `resource_constraint` (`details.resource: "memory"`, `bound`, `limit`, `observed`).
   * A malformed or tampered record is `invalid_request` or `evidence_integrity_mismatch`.
   */
  retain(record: EvidenceRecord<unknown>): EvidenceRecord;
  /**
   * {@link SessionLedger.retain} without holding the event loop: the record is verified (every byte
   * of its canonical JSON) a slice at a time, then retained. Same result and errors, plus `cancelled`
   * (`details.phase: "publication"`) when `signal` is aborted before the record is retained; a
   * cancelled retain leaves the ledger unchanged.
   */
  retainAsync(record: EvidenceRecord<unknown>, signal?: AbortSignal): Promise<EvidenceRecord>;
  /** The retained record with this id, if any. */
  get(evidenceId: string): EvidenceRecord | undefined;
  /** True when a record with this id is retained. */
  has(evidenceId: string): boolean;
  /**
   * The record a `{"kind":"retained-evidence"}` reference names. A miss is `not_found` with
   * `details.reason: "missing"` and the exact `details.evidence_id`.
   */
  resolve(ref: RetainedEvidenceRef): EvidenceRecord;
  /** Every retained record, in insertion order. */
  list(): EvidenceRecord[];
  /**
   * Payload-free summaries of the retained records matching `filters` (exact match), in insertion
   * order. Malformed filters are `invalid_request`.
   */
  summaries(filters?: SummaryFilters): EvidenceSummary[];
  /**
   * Retains every record not already present, all or nothing: when the new records together would
   * exceed a bound, nothing is retained and `resource_constraint` is thrown.
   */
  merge(records: Iterable<EvidenceRecord<unknown>>): LedgerMergeResult;
  /**
   * {@link SessionLedger.merge} without holding the event loop: each new record is verified (every
   * byte of its canonical JSON) a slice at a time, then all are retained at once. Same result and
   * errors, plus `cancelled` (`details.phase: "merge"`) when `signal` is aborted first; a cancelled
   * merge leaves the ledger unchanged.
   */
  mergeAsync(records: Iterable<EvidenceRecord<unknown>>, signal?: AbortSignal): Promise<LedgerMergeResult>;
  /**
   * Reads a bundle file with `importBundle` (same options and errors) and merges its records with
   * {@link SessionLedger.mergeAsync}, all or nothing; identical records already retained are idempotent.
   */
  importBundle(path: string, options?: ImportBundleOptions): Promise<LedgerMergeResult>;
  /** Exports every retained record as a bundle; see `exportBundle`. */
  exportBundle(destination: string, options?: ExportBundleOptions): Promise<ExportBundleResult>;
  /** Drops every record (`close_binary`) and returns how many there were. */
  clear(): number;
}

interface Entry {
  record: EvidenceRecord;
  byteSize: number;
}

function checkBound(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ReaError('invalid_request', `The ledger bound ${name} must be a positive safe integer.`, {
      details: { reason: 'invalid-limit', bound: name, value: String(value) },
    });
  }
  return value;
}

function overBound(bound: 'records' | 'bytes', limit: number, observed: number, ids: string[]): ReaError {
  return new ReaError(
    'resource_constraint',
    `Retaining this Evidence would exceed the session ledger's ${bound} bound (${observed} > ${limit}).`,
    {
      details: { resource: 'memory', bound, limit, observed, evidence_ids: ids.slice(0, 20) },
      remediation: 'Export the session bundle and close the target to clear the ledger, or raise the ledger bound.',
    },
  );
}

/**
 * Creates an empty session ledger with the given bounds (positive safe integers; otherwise
 * `invalid_request`).
 */
export function createSessionLedger(options: SessionLedgerOptions = {}): SessionLedger {
  const maxRecords = checkBound('maxRecords', options.maxRecords ?? DEFAULT_LEDGER_MAX_RECORDS);
  const maxBytes = checkBound('maxBytes', options.maxBytes ?? DEFAULT_LEDGER_MAX_BYTES);
  const entries = new Map<string, Entry>();
  let bytes = 0;

  const admit = (fresh: Entry[]): void => {
    const records = entries.size + fresh.length;
    const ids = fresh.map((entry) => entry.record.evidence_id);
    if (records > maxRecords) throw overBound('records', maxRecords, records, ids);
    const total = fresh.reduce((sum, entry) => sum + entry.byteSize, bytes);
    if (total > maxBytes) throw overBound('bytes', maxBytes, total, ids);
    for (const entry of fresh) entries.set(entry.record.evidence_id, entry);
    bytes = total;
  };

  const ledger: SessionLedger = {
    maxRecords,
    maxBytes,
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
    retain(record) {
      const known = entries.get(record.evidence_id);
      if (known !== undefined) return known.record;
      const entry = toEntry(record);
      admit([entry]);
      return entry.record;
    },
    async retainAsync(record, signal) {
      const known = entries.get(record.evidence_id);
      if (known !== undefined) return known.record;
      const entry = await verifyEvidenceAsync(record, { signal, phase: 'publication' });
      throwIfAborted(signal, 'publication');
      // The same record may have been retained while this one was being verified.
      const retained = entries.get(entry.record.evidence_id);
      if (retained !== undefined) return retained.record;
      admit([entry]);
      return entry.record;
    },
    get(evidenceId) {
      return entries.get(evidenceId)?.record;
    },
    has(evidenceId) {
      return entries.has(evidenceId);
    },
    resolve(ref) {
      const parsedRef = RetainedEvidenceRefSchema.safeParse(ref);
      if (!parsedRef.success) {
        throw new ReaError('invalid_request', 'A retained Evidence reference is malformed.', {
          details: {
            issues: parsedRef.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
          },
        });
      }
      const found = entries.get(ref.evidence_id);
      if (found === undefined) {
        throw new ReaError('not_found', `No Evidence ${ref.evidence_id} is retained in this session.`, {
          details: { reason: 'missing', evidence_id: ref.evidence_id },
        });
      }
      return found.record;
    },
    list() {
      return Array.from(entries.values(), (entry) => entry.record);
    },
    summaries(filters) {
      const parsed = parseSummaryFilters(filters);
      const out: EvidenceSummary[] = [];
      for (const entry of entries.values()) {
        const summary = summarizeEvidence(entry.record, entry.byteSize);
        if (matchesSummaryFilters(summary, parsed)) out.push(summary);
      }
      return out;
    },
    merge(records) {
      const fresh = new Map<string, Entry>();
      const present = new Set<string>();
      for (const record of records) {
        const id = record.evidence_id;
        // A record given twice is added once; it was not present before.
        if (entries.has(id)) present.add(id);
        else if (!fresh.has(id)) fresh.set(id, toEntry(record));
      }
      admit([...fresh.values()]);
      return { added: [...fresh.keys()], already_present: [...present] };
    },
    async mergeAsync(records, signal) {
      const list = [...records];
      const verified = new Map<string, Entry>();
      for (const record of list) {
        if (entries.has(record.evidence_id) || verified.has(record.evidence_id)) continue;
        const entry = await verifyEvidenceAsync(record, { signal, phase: 'merge' });
        verified.set(entry.record.evidence_id, entry);
      }
      throwIfAborted(signal, 'merge');
      // Sorted out only now: records may have been retained while these were being verified.
      const fresh = new Map<string, Entry>();
      const present = new Set<string>();
      for (const record of list) {
        const id = record.evidence_id;
        if (entries.has(id)) present.add(id);
        else if (!fresh.has(id)) fresh.set(id, verified.get(id)!);
      }
      admit([...fresh.values()]);
      return { added: [...fresh.keys()], already_present: [...present] };
    },
    async importBundle(path, options) {
      const bundle = await importBundle(path, options);
      return ledger.mergeAsync(bundle.records, options?.signal);
    },
    exportBundle(destination, options) {
      return exportBundle(ledger.list(), destination, options);
    },
    clear() {
      const dropped = entries.size;
      entries.clear();
      bytes = 0;
      return dropped;
    },
  };
  return ledger;
}

function toEntry(record: EvidenceRecord<unknown>): Entry {
  const { record: verified, byteSize } = verifyEvidence(record);
  return { record: verified, byteSize };
}

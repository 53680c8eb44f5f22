import { monotonicMs } from './clock.js';
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { constants } from 'node:buffer';
import { BUNDLE_FORMAT, BUNDLE_VERSION, BundleEnvelopeSchema, DEFAULT_MAX_BUNDLE_BYTES } from './bundleFormat.js';
import { canonicalByteLength } from './canonicalJson.js';
import { verifyEvidenceAsync } from './evidence.js';
import type { EvidenceRecord } from './evidence.js';
import { fileSystemError } from './fsErrors.js';
import { parseJsonInSlices } from './jsonSlices.js';
import { ReaError, isReaError, throwIfAborted } from './reaError.js';
import { matchesSummaryFilters, parseSummaryFilters, summarizeEvidence } from './summary.js';
import type { EvidenceSummary, SummaryFilters } from './summary.js';

/** Options for {@link importBundle} and {@link readBundleSummary}. */
export interface ImportBundleOptions {
  /** Largest file accepted, in bytes (default {@link DEFAULT_MAX_BUNDLE_BYTES}); larger files are refused unread. */
  maxBytes?: number;
  /** Stops reading and validation between records with `cancelled`. */
  signal?: AbortSignal;
}

/** A validated bundle. */
export interface ImportedBundle {
  format: 'rea-evidence-bundle';
  version: 1;
  /** Every record, verified (schema, profile digest, id), in file order. */
  records: EvidenceRecord[];
  /** Size of the bundle file in bytes. */
  byte_size: number;
}

function notAFile(path: string): ReaError {
  return new ReaError('invalid_request', `The bundle path ${path} is not a regular file.`, {
    details: { reason: 'not-a-file', path },
  });
}

const MAX_STRING_LENGTH = constants.MAX_STRING_LENGTH;
/** Longest stretch of record verification between two turns of the event loop (ms). */
const VALIDATION_SLICE_MS = 10;

async function readBounded(path: string, maxBytes: number, signal: AbortSignal | undefined): Promise<Buffer> {
  // Opening a FIFO or a device could block or never end: only regular files are opened.
  let kind;
  try {
    kind = await stat(path);
  } catch (error) {
    throw fileSystemError(error, path, 'open the bundle');
  }
  if (!kind.isFile()) throw notAFile(path);
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw fileSystemError(error, path, 'open the bundle');
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notAFile(path);
    if (info.size > maxBytes) throw tooLarge(path, maxBytes, info.size);
    // Read at most one byte past the limit, so a file that grows after stat is still refused.
    const buffer = Buffer.allocUnsafe(Math.min(info.size, maxBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      throwIfAborted(signal, 'bundle import');
      const { bytesRead } = await handle.read(buffer, length, Math.min(buffer.length - length, 1 << 24), length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw tooLarge(path, maxBytes, length);
    return buffer.subarray(0, length);
  } catch (error) {
    throw isReaError(error) ? error : fileSystemError(error, path, 'read the bundle');
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function tooLarge(path: string, limit: number, observed: number): ReaError {
  return new ReaError('resource_constraint', `The bundle ${path} is larger than the ${limit}-byte import limit.`, {
    details: { resource: 'file-size', limit, observed, path },
    remediation: 'Raise the import size limit, or export a smaller bundle (filter the ledger first).',
  });
}

// Node cannot hold text beyond its largest string (about 512 Mi code units), whatever maxBytes says.
function decode(bytes: Buffer, path: string): string {
  try {
    return bytes.toString('utf8');
  } catch (error) {
    throw new ReaError('resource_constraint', `The bundle ${path} is too large to decode in one piece.`, {
      details: { resource: 'memory', limit: MAX_STRING_LENGTH, observed: bytes.length, path },
      remediation: 'Export smaller bundles (filter the ledger first).',
      cause: error,
    });
  }
}

function atRecord(error: unknown, index: number): unknown {
  if (!isReaError(error) || error.code === 'cancelled') return error;
  return new ReaError(error.code, `Bundle record ${index}: ${error.message}`, {
    retryable: error.retryable,
    remediation: error.remediation,
    details: { ...error.details, record_index: index },
    cause: error,
  });
}

/**
 * Reads and validates a bundle file (see {@link BUNDLE_VERSION}). A file larger than `maxBytes` is
 * refused before it is read, with `resource_constraint` (`details.resource: "file-size"`, `limit`,
 * `observed`). The file is parsed a record at a time (`cancelled`, `details.phase: "bundle parse"`, when
 * `signal` is aborted meanwhile). Malformed JSON or a wrong envelope is `invalid_request`; every record is verified as
 * `parseEvidence` verifies it, a slice at a time (`cancelled`, `details.phase: "bundle validation"`,
 * when `signal` is aborted meanwhile), and a failing record's error carries `details.record_index`. A missing file is
 * `not_found`. Merge the result into a ledger with `ledger.mergeAsync(bundle.records, signal)`.
 */
export async function importBundle(path: string, options: ImportBundleOptions = {}): Promise<ImportedBundle> {
  const { signal, maxBytes = DEFAULT_MAX_BUNDLE_BYTES } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new ReaError('invalid_request', 'maxBytes must be a non-negative safe integer.', {
      details: { reason: 'invalid-limit', maxBytes: String(maxBytes) },
    });
  }
  throwIfAborted(signal, 'bundle import');
  const absolute = resolve(path);
  const bytes = await readBounded(absolute, maxBytes, signal);
  // Parsed a record at a time, with turns of the event loop (`cancelled`, phase "bundle parse").
  const parsed = await parseJsonInSlices(bytes, {
    signal,
    phase: 'bundle parse',
    decode: (span) => decode(span, absolute),
  });
  const envelope = BundleEnvelopeSchema.safeParse(parsed);
  if (!envelope.success) {
    throw new ReaError('invalid_request', `${absolute} is not an Evidence bundle.`, {
      details: {
        reason: 'not-a-bundle',
        path: absolute,
        issues: envelope.error.issues
          .slice(0, 50)
          .map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
      },
    });
  }
  const records: EvidenceRecord[] = [];
  // A small record is verified without a turn of its own: the loop takes one once a slice has run,
  // so that thousands of small records do not hold the event loop either.
  let sliceStart = monotonicMs();
  for (const [index, value] of envelope.data.records.entries()) {
    if (monotonicMs() - sliceStart >= VALIDATION_SLICE_MS) {
      await nextTurn();
      sliceStart = monotonicMs();
    }
    throwIfAborted(signal, 'bundle validation');
    // Each record is verified a slice at a time: a large one does not hold the event loop.
    try {
      records.push((await verifyEvidenceAsync(value, { signal, phase: 'bundle validation' })).record);
    } catch (error) {
      throw atRecord(error, index);
    }
  }
  return { format: BUNDLE_FORMAT, version: BUNDLE_VERSION, records, byte_size: bytes.length };
}

/** The summary projection of a bundle file. */
export interface BundleSummary {
  format: 'rea-evidence-bundle';
  version: 1;
  /** Number of records in the bundle (before filtering). */
  record_count: number;
  byte_size: number;
  /** Summaries of the records matching the filters, in file order. */
  records: EvidenceSummary[];
}

/**
 * Validates a bundle like {@link importBundle} and returns its records' summaries (no payloads),
 * filtered exactly like a ledger's `summaries(filters)`. Malformed filters are `invalid_request`.
 */
export async function readBundleSummary(
  path: string,
  options: ImportBundleOptions & { filters?: SummaryFilters } = {},
): Promise<BundleSummary> {
  const filters = parseSummaryFilters(options.filters);
  const bundle = await importBundle(path, options);
  const records: EvidenceSummary[] = [];
  for (const record of bundle.records) {
    throwIfAborted(options.signal, 'bundle summary');
    const summary = summarizeEvidence(record, canonicalByteLength(record));
    if (matchesSummaryFilters(summary, filters)) records.push(summary);
  }
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    record_count: bundle.records.length,
    byte_size: bundle.byte_size,
    records,
  };
}

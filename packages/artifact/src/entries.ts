// Direct access to a ZIP's entries: the central directory as a listing, and chosen entries read into
// memory by name. Nothing is inflated or hashed except the entries asked for, so a caller that needs
// a few entries of a large archive pays for those alone.
import { createHash } from 'node:crypto';
import { ReaError, fileSystemError, isReaError, throwIfAborted } from '@rea/evidence';
import { malformed, unsafePath } from './errors.js';
import type { UnsafePathProblem } from './errors.js';
import { SMALL_ENTRY_BYTES } from './engine/zip.js';
import type { ZipEntryInfo, ZipReader } from './engine/zip.js';
import { readStored } from './entriesStored.js';
import { refuseUnreadable } from './extract/nested.js';
import { planCooperatively } from './extract/plan.js';
import type { PlannedEntry } from './extract/plan.js';
import { contradictionRecord } from './integrity.js';
import type { ObservedContradiction } from './integrity.js';
import { readDirectory } from './inventory/zip.js';
import { readZipEntry } from './inventory/zipEntry.js';
import { DEFAULT_BUDGETS } from './options.js';
import { entryNameProblem, logicalPath } from './paths.js';
import type { IntegrityContradiction, IntegrityPolicy } from './schemas.js';

/** One entry as the central directory declares it (nothing of it has been read). */
export interface ZipEntryRecord {
  /** Logical path: backslashes as "/", no trailing "/". */
  path: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
  /** Declared uncompressed size in bytes. */
  size: number;
  compressedSize: number;
  /** 0 stored, 8 deflated; anything else cannot be read. */
  compressionMethod: number;
  /** Declared CRC-32 of the uncompressed bytes. */
  crc32: number;
  encrypted: boolean;
  /** Offset of the entry's local header in the archive. */
  localHeaderOffset: number;
  /** Unix mode when the entry was made on Unix, else null. */
  mode: number | null;
  /**
   * Why the entry cannot be read by name, or null: an unsafe path or a name holding `!/`
   * (`nested-separator`), as `inspect_artifact` and extraction judge it, or `path-conflict` when another
   * entry has the same path.
   */
  problem: UnsafePathProblem | null;
}

/** Options of {@link openZipEntries}. */
export interface OpenZipEntriesOptions {
  /** Most central-directory records listed (default `DEFAULT_BUDGETS.max_entries`). */
  maxEntries?: number;
  signal?: AbortSignal;
}

/** Options of {@link ZipEntries.read}. */
export interface ReadZipEntriesOptions {
  /** Largest declared size of one entry read (`resource_constraint` past it). */
  maxEntryBytes: number;
  /** Most declared bytes read across the call (`resource_constraint` past it). */
  maxTotalBytes: number;
  /**
   * `fail-closed` (default): an entry whose bytes contradict its declared CRC-32 or size is
   * `artifact_integrity_mismatch`. `record-and-continue`: it is left out of `contents` and recorded
   * in `contradictions`.
   */
  integrityPolicy?: IntegrityPolicy;
  /**
   * SHA-256 of each entry read (default true). False spares hashing every entry (`sha256` is null);
   * their CRC-32 and size are checked all the same.
   */
  hash?: boolean;
  signal?: AbortSignal;
}

/** The bytes of one entry, checked against its declared CRC-32 and size. */
export interface ZipEntryContent {
  bytes: Buffer;
  /** Null exactly when `hash` was false. */
  sha256: string | null;
}

/** What {@link ZipEntries.read} returns. */
export interface ZipEntriesRead {
  /** By logical path, in the order asked for. */
  contents: Map<string, ZipEntryContent>;
  contradictions: IntegrityContradiction[];
}

/** An open ZIP: its listed entries, and reads of chosen ones. Close it when done. */
export interface ZipEntries {
  readonly entries: readonly ZipEntryRecord[];
  /** False when the archive holds more entries than `maxEntries` (the rest are not listed). */
  readonly complete: boolean;
  /** The number of entries the archive declares. */
  readonly declaredCount: number;
  /** Bytes of the file before the archive (a self-extractor's stub); entries' offsets are the file's. */
  readonly archiveStart: number;
  /** Bytes of the file after the archive's end record. */
  readonly trailingBytes: number;
  /** The central directory's size as its end record (or zip64 end record) declares it; null when unreadable. */
  readonly declaredDirectorySize: number | null;
  /**
   * The bytes the central directory's records take (read from its declared start by its declared entry
   * count, as unzip reads them); null when not every record was listed. A value other than
   * {@link declaredDirectorySize} is a directory whose end record misstates its size.
   */
  readonly directorySize: number | null;
  /**
   * Reads the entries at `paths` (logical paths) into memory. Every path is judged first, before any
   * byte is read: a path absent from the listing is `not_found`; an unsafe or duplicated path, a
   * directory, symlink or special file, an encrypted entry or an unsupported compression method is
   * `unsupported_target`; a declared size past the budgets is `resource_constraint`. A truncated or
   * undecodable local header is `unsupported_target` (malformed); bytes that contradict the declared
   * CRC-32 or size follow `integrityPolicy`; an aborted `signal` is `cancelled`.
   */
  read(paths: readonly string[], options: ReadZipEntriesOptions): Promise<ZipEntriesRead>;
  close(): void;
}

function recordOf(info: ZipEntryInfo, duplicated: boolean): ZipEntryRecord {
  const path = logicalPath(info.name);
  return {
    path,
    kind: info.kind,
    size: info.uncompressedSize,
    compressedSize: info.compressedSize,
    compressionMethod: info.compressionMethod,
    crc32: info.crc32,
    encrypted: info.encrypted,
    localHeaderOffset: info.localHeaderOffset,
    mode: info.mode,
    problem: entryNameProblem(path) ?? (duplicated ? 'path-conflict' : null),
  };
}

/**
 * Opens a ZIP (a path, or its bytes) and lists its entries from the central directory alone, with
 * the inventory's structural checks: no end record, a truncated directory, overlapping entries or
 * data reaching into the directory are `unsupported_target` (malformed); a missing file `not_found`.
 */
export async function openZipEntries(
  source: string | Buffer,
  options: OpenZipEntriesOptions = {},
): Promise<ZipEntries> {
  const limit = options.maxEntries ?? DEFAULT_BUDGETS.max_entries;
  let opened: { reader: ZipReader; infos: ZipEntryInfo[] };
  try {
    opened = await readDirectory(source, limit, options.signal);
  } catch (error) {
    if (isReaError(error) || typeof source !== 'string') throw error;
    throw fileSystemError(error, source, 'read');
  }
  const { reader, infos } = opened;
  const seen = new Map<string, number>();
  for (const info of infos) {
    const path = logicalPath(info.name);
    seen.set(path, (seen.get(path) ?? 0) + 1);
  }
  const entries = infos.map((info) => recordOf(info, (seen.get(logicalPath(info.name)) ?? 0) > 1));
  return {
    entries,
    complete: reader.entryCount <= infos.length,
    declaredCount: reader.entryCount,
    archiveStart: reader.archiveStart,
    trailingBytes: reader.trailingBytes,
    declaredDirectorySize: reader.declaredDirectorySize,
    directorySize: reader.directorySize,
    read: (paths, readOptions) =>
      readEntries(reader, typeof source === 'string' ? source : null, infos, paths, readOptions),
    close: () => reader.close(),
  };
}

/** Lists a ZIP's entries from its central directory (see {@link openZipEntries}). */
export async function listZipEntries(
  source: string | Buffer,
  options: OpenZipEntriesOptions = {},
): Promise<{ entries: readonly ZipEntryRecord[]; complete: boolean; declaredCount: number }> {
  const zip = await openZipEntries(source, options);
  zip.close();
  return { entries: zip.entries, complete: zip.complete, declaredCount: zip.declaredCount };
}

function tooLarge(path: string, budget: 'max_entry_bytes' | 'max_total_bytes', limit: number, size: number): ReaError {
  const what = budget === 'max_entry_bytes' ? 'entry' : 'total';
  return new ReaError(
    'resource_constraint',
    `Entry ${JSON.stringify(path)} is past the ${limit}-byte ${what} budget.`,
    {
      details: { path, budget, limit, observed: size },
      remediation: 'Raise the budget if the archive is trusted, or read fewer entries.',
    },
  );
}

function mismatch(c: ObservedContradiction): ReaError {
  return new ReaError(
    'artifact_integrity_mismatch',
    `Integrity mismatch at ${c.path}: declared ${c.algorithm} ${c.declared}, observed ${c.observed}.`,
    {
      details: { path: c.path, declared: c.declared, observed: c.observed, algorithm: c.algorithm },
      remediation: 'Obtain intact bytes of the archive.',
    },
  );
}

/** Judges the asked-for paths with the extraction's own checks; returns the entries to read. */
async function judge(
  infos: readonly ZipEntryInfo[],
  paths: readonly string[],
  options: ReadZipEntriesOptions,
): Promise<PlannedEntry<ZipEntryInfo>[]> {
  const wanted = new Set(paths);
  const planned: PlannedEntry<ZipEntryInfo>[] = [];
  for (const info of infos) {
    const path = logicalPath(info.name);
    if (!wanted.has(path)) continue;
    // Read by that name, it would stand where an entry of a nested container belongs, as extraction refuses it.
    if (entryNameProblem(path) === 'nested-separator') throw unsafePath(path, 'nested-separator');
    planned.push({
      path,
      kind: info.kind,
      linkTarget: null,
      linkFromRoot: false,
      executable: false,
      declaredSize: info.uncompressedSize,
      compressedSize: info.compressedSize,
      handle: info,
    });
  }
  // Absent paths are not_found; unsafe, duplicated or colliding paths and special files are refused.
  const chosen = (await planCooperatively(planned, [...wanted], options.signal)).filter((e) => wanted.has(e.path));
  let total = 0;
  for (const entry of chosen) {
    if (entry.kind !== 'file') {
      throw new ReaError('unsupported_target', `Entry ${JSON.stringify(entry.path)} is a ${entry.kind}, not a file.`, {
        details: { path: entry.path, format: 'zip', reason: 'not-a-file' },
        remediation: 'Name file entries only (kind "file" in the entries inspect_artifact lists).',
      });
    }
    refuseUnreadable(entry.handle, entry.path);
    if (entry.declaredSize > options.maxEntryBytes)
      throw tooLarge(entry.path, 'max_entry_bytes', options.maxEntryBytes, entry.declaredSize);
    total += entry.declaredSize;
    if (total > options.maxTotalBytes) throw tooLarge(entry.path, 'max_total_bytes', options.maxTotalBytes, total);
  }
  return chosen;
}

/** Large stored entries of a file are read into one buffer directly (see ./entriesStored.ts). */
function direct(file: string | null, info: ZipEntryInfo): file is string {
  return (
    file !== null &&
    info.compressionMethod === 0 &&
    info.compressedSize === info.uncompressedSize &&
    info.uncompressedSize > SMALL_ENTRY_BYTES
  );
}

async function readEntries(
  reader: ZipReader,
  file: string | null,
  infos: readonly ZipEntryInfo[],
  paths: readonly string[],
  options: ReadZipEntriesOptions,
): Promise<ZipEntriesRead> {
  const chosen = await judge(infos, paths, options);
  const byPath = new Map(chosen.map((e) => [e.path, e]));
  const read = new Map<string, ZipEntryContent>();
  const contradictions: IntegrityContradiction[] = [];
  for (const entry of chosen) {
    throwIfAborted(options.signal, 'reading');
    const info = entry.handle;
    if (direct(file, info)) {
      const stored = await readStored(file, info, entry.path, reader.centralDirectoryOffset, options.signal);
      if (stored.contradiction !== null) {
        if ((options.integrityPolicy ?? 'fail-closed') === 'fail-closed') throw mismatch(stored.contradiction);
        contradictions.push(contradictionRecord(stored.contradiction, true));
        continue;
      }
      const sha256 = options.hash === false ? null : createHash('sha256').update(stored.bytes).digest('hex');
      read.set(entry.path, { bytes: stored.bytes, sha256 });
      continue;
    }
    // Sizes are asserted while reading: an entry whose bytes outgrow its declaration stops there.
    const { digest, contradiction } = await readZipEntry(reader, info, entry.path, {
      signal: options.signal,
      collect: { upTo: info.uncompressedSize, containersOnly: false },
      sha256: options.hash !== false,
    });
    if (contradiction !== null) {
      if ((options.integrityPolicy ?? 'fail-closed') === 'fail-closed') throw mismatch(contradiction);
      contradictions.push(contradictionRecord(contradiction, true));
      continue;
    }
    const collected = digest?.collected;
    if (!digest || !collected) throw malformed('zip', `entry ${JSON.stringify(entry.path)} could not be read whole`);
    // A stored small entry is a view of a shared read block: keep a copy of its own.
    const bytes = collected.byteLength < collected.buffer.byteLength ? Buffer.from(collected) : collected;
    read.set(entry.path, { bytes, sha256: digest.sha256 });
  }
  const contents = new Map<string, ZipEntryContent>();
  for (const path of paths) {
    const content = read.get(path);
    if (content !== undefined && byPath.has(path)) contents.set(path, content);
  }
  return { contents, contradictions };
}

import { SMALL_ENTRY_BYTES, openZip, classifyStreamError } from '../engine/zip.js';
import { Pacer } from '../layout/cooperative.js';
import type { ZipEntryInfo, ZipReader } from '../engine/zip.js';
import { digestBuffer, digestStream, crcHex } from '../hashing.js';
import type { Digest, DigestOptions } from '../hashing.js';
import { containerFromHead, packageTypeFromNames } from '../detect.js';
import { malformed } from '../errors.js';
import { logicalPath, nestedPath, pathProblem, symlinkEscapes } from '../paths.js';
import type { ArtifactEntry, PackageType } from '../schemas.js';
import type { ObservedContradiction } from '../integrity.js';
import type { InventoryState } from './state.js';
import { considerNested } from './nested.js';
import type { CompanionReader } from './asarEntry.js';
import { digestWorkerTasks } from './digestTasks.js';
import { DigestPool } from '../engine/digestPool.js';
import type { DigestResult } from '../engine/digestMessages.js';

const MAX_LINK_BYTES = 4096;

/**
 * Refuses archives whose entries overlap (the overlapping-entry zip-bomb construction) or whose data
 * reaches into the central directory (declared sizes that lie).
 */
export function checkLayout(infos: readonly ZipEntryInfo[], centralDirectoryOffset: number): void {
  const span = (info: ZipEntryInfo) => ({
    name: info.name,
    start: info.localHeaderOffset,
    end: info.localHeaderOffset + 30 + info.nameLength + info.compressedSize,
  });
  // Archives are almost always written in directory order: then no sort is needed (a stable sort
  // would keep that order), and the check is one linear pass.
  let ordered = true;
  for (let i = 1; i < infos.length && ordered; i += 1)
    ordered = infos[i]!.localHeaderOffset >= infos[i - 1]!.localHeaderOffset;
  const spans = ordered ? infos.map(span) : infos.map(span).sort((a, b) => a.start - b.start);
  for (let i = 0; i < spans.length; i += 1) {
    const span = spans[i]!;
    if (span.end > centralDirectoryOffset) {
      throw malformed('zip', `entry ${JSON.stringify(span.name)} declares data reaching past the central directory`, {
        path: span.name,
      });
    }
    const next = spans[i + 1];
    if (next !== undefined && span.end > next.start) {
      throw malformed('zip', `entries ${JSON.stringify(span.name)} and ${JSON.stringify(next.name)} overlap`, {
        path: next.name,
        problem: 'overlapping-entries',
      });
    }
  }
}

/** Opens a ZIP, reads its central directory within the entry budget, and checks its layout. */
export async function readDirectory(
  source: string | Buffer,
  limit: number,
  signal?: AbortSignal,
): Promise<{ reader: ZipReader; infos: ZipEntryInfo[] }> {
  const reader = await openZip(source);
  const pacer = new Pacer(signal);
  try {
    const infos = await reader.readEntries(Math.min(limit, reader.entryCount), signal);
    // The layout check sorts every entry: after a long read it starts on a fresh slice.
    await pacer.turn('directory');
    checkLayout(infos, reader.centralDirectoryOffset);
    return { reader, infos };
  } catch (error) {
    reader.close();
    throw error;
  }
}

type Base = { path: string; provenance: 'zip-central-directory'; unpacked: false };
type EntryRead = { digest: Digest | null; contradiction: ObservedContradiction | null };

function faultContradiction(
  info: ZipEntryInfo,
  base: Base,
  fault: ReturnType<typeof classifyStreamError>,
): ObservedContradiction {
  const observed =
    fault.kind === 'size' ? `at least ${fault.observedAtLeast} bytes` : `undecodable data (${fault.message})`;
  return {
    ...base,
    algorithm: fault.kind === 'size' ? 'size' : 'crc32',
    declared: fault.kind === 'size' ? `${info.uncompressedSize} bytes` : crcHex(info.crc32),
    observed,
    observedSha256: null,
  };
}

function checked(info: ZipEntryInfo, base: Base, digest: Digest): EntryRead {
  if (digest.size !== info.uncompressedSize) {
    const observed = `${digest.size} bytes`;
    return {
      digest,
      contradiction: {
        ...base,
        algorithm: 'size',
        declared: `${info.uncompressedSize} bytes`,
        observed,
        observedSha256: digest.sha256,
      },
    };
  }
  if (digest.crc32 !== info.crc32) {
    const observed = crcHex(digest.crc32 ?? 0);
    return {
      digest,
      contradiction: {
        ...base,
        algorithm: 'crc32',
        declared: crcHex(info.crc32),
        observed,
        observedSha256: digest.sha256,
      },
    };
  }
  return { digest, contradiction: null };
}

/** A worker's digest as the reader's own: what it kept is kept only as `collect` asks. */
function fromWorker(
  info: ZipEntryInfo,
  result: DigestResult,
  collect: { upTo: number; containersOnly: boolean } | undefined,
): Digest {
  const head = Buffer.from(result.head.buffer, result.head.byteOffset, result.head.byteLength);
  const bytes = result.collected;
  const keep =
    bytes !== null &&
    collect !== undefined &&
    bytes.byteLength <= collect.upTo &&
    (!collect.containersOnly || containerFromHead(head) !== null);
  return {
    sha256: result.sha256,
    size: info.uncompressedSize,
    crc32: result.crc32,
    blocks: null,
    collected: keep ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null,
    head,
  };
}

/** Reads one ZIP entry, checking CRC-32 and size; returns the digest and any contradiction observed. */
export async function readZipEntry(
  reader: ZipReader,
  info: ZipEntryInfo,
  path: string,
  options: {
    signal?: AbortSignal | undefined;
    /** Keep the bytes (up to `upTo`), of containers only or of anything. */
    collect?: { upTo: number; containersOnly: boolean };
    onChunk?: (chunk: Buffer) => Promise<void>;
    /** Hash fixed-size blocks too (an ASAR companion checked against its header). */
    blockSize?: number;
    /** The digest a worker computed ahead, or its promise (null: it left the entry to this reader). */
    digested?: DigestResult | null | Promise<DigestResult | null> | undefined;
  },
): Promise<EntryRead> {
  const base: Base = { path, provenance: 'zip-central-directory', unpacked: false };
  // A failure of the consumer (a budget, a full disk) is its own error, not a fault of the entry.
  let sinkFailure: { error: unknown } | null = null;
  const onChunk = options.onChunk;
  const sink = onChunk
    ? async (chunk: Buffer): Promise<void> => {
        try {
          await onChunk(chunk);
        } catch (error) {
          sinkFailure = { error };
          throw error;
        }
      }
    : undefined;
  const digested = options.digested;
  const ahead = digested instanceof Promise ? await digested : (digested ?? null);
  if (ahead !== null) return checked(info, base, fromWorker(info, ahead, options.collect));
  const digestOptions: DigestOptions = {
    crc32: true,
    signal: options.signal,
    ...(options.blockSize !== undefined ? { blockSize: options.blockSize } : {}),
    ...(options.collect ? { collectUpTo: options.collect.upTo } : {}),
    ...(options.collect?.containersOnly ? { collectWhen: (head: Buffer) => containerFromHead(head) !== null } : {}),
    ...(sink ? { onChunk: sink } : {}),
  };
  if (info.compressedSize <= SMALL_ENTRY_BYTES && info.uncompressedSize <= SMALL_ENTRY_BYTES) {
    // Small entries: one cached read and one inflate call instead of a stream pipeline.
    // Without a consumer of its chunks, the entry is hashed before the next read, so its bytes may be
    // inflated into a reused buffer; what is kept of them is copied out.
    const transient = sink === undefined;
    const small = await reader.readSmall(info, transient);
    if ('bytes' in small) {
      const digest = await digestBuffer(small.bytes, digestOptions);
      if (transient && digest.collected !== null) digest.collected = Buffer.from(digest.collected);
      return checked(info, base, digest);
    }
    const fault =
      small.fault === 'size'
        ? { kind: 'size' as const, observedAtLeast: small.observedAtLeast }
        : { kind: 'other' as const, message: small.message };
    return { digest: null, contradiction: faultContradiction(info, base, fault) };
  }
  // A local header that cannot be read is structural (thrown); only the data stream yields contradictions.
  const stream = await reader.open(info);
  try {
    return checked(info, base, await digestStream(stream, digestOptions));
  } catch (error) {
    if (sinkFailure !== null) throw (sinkFailure as { error: unknown }).error;
    if ((error as { code?: unknown }).code === 'cancelled' || options.signal?.aborted) throw error;
    return { digest: null, contradiction: faultContradiction(info, base, classifyStreamError(error)) };
  }
}

function baseEntry(info: ZipEntryInfo, path: string): ArtifactEntry {
  return {
    path,
    kind: info.kind,
    size: info.uncompressedSize,
    compressed_size: info.compressedSize,
    mode: info.mode,
    symlink_target: null,
    unpacked: false,
    sha256: null,
    integrity: info.kind === 'file' || info.kind === 'symlink' ? 'unchecked' : 'undeclared',
    nested_format: null,
  };
}

async function inventoryEntry(
  state: InventoryState,
  reader: ZipReader,
  info: ZipEntryInfo,
  prefix: string,
  depth: number,
  byName: ReadonlyMap<string, ZipEntryInfo>,
  digested: DigestResult | null | Promise<DigestResult | null> | undefined,
): Promise<void> {
  const inner = logicalPath(info.name);
  const path = nestedPath(prefix, inner);
  const entry = baseEntry(info, path);
  const problem = pathProblem(inner);
  if (problem !== null)
    state.partial(
      `unsafe entry path ${JSON.stringify(path)} (${problem}); it cannot be extracted`,
      'unsafe-path',
      path,
    );
  if (info.kind === 'directory' || info.kind === 'other') {
    if (info.kind === 'other')
      state.partial(
        `entry ${JSON.stringify(path)} is a device or special file; its bytes were not read`,
        'special-file',
        path,
      );
    state.add(entry);
    return;
  }
  if (info.encrypted || (info.compressionMethod !== 0 && info.compressionMethod !== 8)) {
    const why = info.encrypted ? 'is encrypted' : `uses unsupported compression method ${info.compressionMethod}`;
    state.partial(
      `entry ${JSON.stringify(path)} ${why}; its bytes were not read or verified`,
      'unreadable-entry',
      path,
    );
    state.add(entry);
    return;
  }
  if (!state.mayRead(info.uncompressedSize) || (info.kind === 'symlink' && info.uncompressedSize > MAX_LINK_BYTES)) {
    state.partial(
      `byte budget reached at ${JSON.stringify(path)}: max_bytes ${state.budgets.max_bytes}; its bytes were not read`,
      'budget-reached',
      path,
    );
    state.add(entry);
    return;
  }
  const nestable = info.kind === 'file' && problem === null;
  const { digest, contradiction } = await readZipEntry(reader, info, path, {
    signal: state.signal,
    digested,
    ...(nestable ? { collect: { upTo: state.nestedRoom(), containersOnly: true } } : {}),
    ...(info.kind === 'symlink' ? { collect: { upTo: MAX_LINK_BYTES, containersOnly: false } } : {}),
  });
  state.bytesRead += digest?.size ?? info.uncompressedSize;
  if (digest) {
    entry.sha256 = digest.sha256;
    entry.size = digest.size;
  }
  if (contradiction) {
    entry.integrity = 'contradicted';
    state.contradiction(contradiction);
    state.add(entry);
    return;
  }
  entry.integrity = 'verified';
  if (info.kind === 'symlink' && digest) {
    entry.symlink_target = digest.collected?.toString('utf8') ?? null;
    if (entry.symlink_target !== null && symlinkEscapes(inner, entry.symlink_target)) {
      state.partial(
        `symlink ${JSON.stringify(path)} points outside the archive; it cannot be extracted`,
        'unsafe-path',
        path,
      );
    }
  }
  if (!state.add(entry)) return;
  if (nestable && digest)
    await considerNested(state, entry, digest, path, depth, companionIn(state, reader, byName, inner, prefix));
}

/**
 * Reads the `.asar.unpacked` companion entries of an ASAR held in this ZIP (an Electron application
 * shipped as a ZIP keeps both side by side). Companion entries are also inventoried in their own right.
 */
function companionIn(
  state: InventoryState,
  reader: ZipReader,
  byName: ReadonlyMap<string, ZipEntryInfo>,
  archive: string,
  prefix: string,
): CompanionReader {
  return async (segments, blockSize) => {
    const name = `${archive}.unpacked/${segments.join('/')}`;
    const info = byName.get(name);
    if (info === undefined || info.kind !== 'file' || info.encrypted) return null;
    if (info.compressionMethod !== 0 && info.compressionMethod !== 8) return null;
    if (!state.mayRead(info.uncompressedSize)) return null;
    const read = await readZipEntry(reader, info, nestedPath(prefix, name), { signal: state.signal, blockSize });
    return read.contradiction === null ? read.digest : null;
  };
}

/** Where a ZIP inventory puts the SHA-256 of the whole file when its workers computed it. */
export interface WholeFileDigest {
  sha256?: string;
}

/**
 * Inventories a ZIP (from a path or nested bytes) into `state`; returns the package type it identifies.
 * With `whole`, the workers that read a large archive also hash the whole file into it.
 */
export async function inventoryZip(
  state: InventoryState,
  source: string | Buffer,
  prefix: string,
  depth: number,
  whole?: WholeFileDigest,
): Promise<PackageType | null> {
  const { reader, infos } = await readDirectory(source, state.remainingEntries(), state.signal);
  try {
    if (reader.entryCount > infos.length) state.entryBudget(prefix === '' ? 'the archive' : prefix);
    const byName = new Map<string, ZipEntryInfo>();
    for (const info of infos) {
      if (state.pacer.due()) await state.pacer.turn('inventory');
      byName.set(logicalPath(info.name), info);
    }
    await state.pacer.turn('inventory');
    const packageType = packageTypeFromNames(new Set(byName.keys()));
    // A large archive on disk is inflated and hashed on worker threads ahead of this walk.
    const tasks = typeof source === 'string' ? digestWorkerTasks(infos, state.budgets.max_nested_bytes) : [];
    const pool = tasks.length > 0 ? await DigestPool.start(source as string, tasks) : null;
    try {
      const wholeFile = whole !== undefined ? pool?.wholeFileSha256() : undefined;
      for (let index = 0; index < infos.length; index += 1) {
        if (state.pacer.due()) await state.pacer.turn('inventory');
        const digested = pool?.take(index);
        await inventoryEntry(state, reader, infos[index]!, prefix, depth, byName, digested);
      }
      const sha256 = await wholeFile;
      if (whole !== undefined && typeof sha256 === 'string') whole.sha256 = sha256;
    } finally {
      await pool?.close();
    }
    return packageType;
  } finally {
    reader.close();
  }
}

import { setImmediate as nextTurn } from 'node:timers/promises';
import { throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { openZip } from '../engine/zip.js';
import { Pacer } from '../layout/cooperative.js';
import type { ZipEntryInfo, ZipReader } from '../engine/zip.js';
import { PackageClues, containerFromHead } from '../detect.js';
import { malformed } from '../errors.js';
import { entryNameProblem, logicalPath, nestedPath, symlinkEscapes } from '../paths.js';
import type { ArtifactEntry, PackageType } from '../schemas.js';
import type { InventoryState } from './state.js';
import { considerNested } from './nested.js';
import type { CompanionReader } from './asarEntry.js';
import { digestWorkerTasksIn, digestWorkerThreshold } from './digestTasks.js';
import { DigestPool } from '../engine/digestPool.js';
import { WholeFileHasher } from '../engine/wholeFile.js';
import type { DigestResult } from '../engine/digestMessages.js';
import { checked, fromWorker, localHeaderContradiction, readZipEntry } from './zipEntry.js';
import type { Base, EntryRead } from './zipEntry.js';

const MAX_LINK_BYTES = 4096;
/** Entries whose worker tasks are made between two looks at the pacer's clock. */
const FEED_SLICE = 1024;

/**
 * Refuses archives whose entries overlap (the overlapping-entry zip-bomb construction) or whose data
 * reaches into the central directory (declared sizes that lie).
 */
export function checkLayout(infos: readonly ZipEntryInfo[], centralDirectoryOffset: number): void {
  const end = (info: ZipEntryInfo): number => info.localHeaderOffset + 30 + info.nameLength + info.compressedSize;
  // Archives are almost always written in directory order: then no sort is needed (a stable sort
  // would keep that order), and the check is one linear pass over the entries themselves.
  let ordered = true;
  for (let i = 1; i < infos.length && ordered; i += 1)
    ordered = infos[i]!.localHeaderOffset >= infos[i - 1]!.localHeaderOffset;
  const sorted = ordered ? infos : [...infos].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 0; i < sorted.length; i += 1) {
    const info = sorted[i]!;
    if (end(info) > centralDirectoryOffset) {
      throw malformed('zip', `entry ${JSON.stringify(info.name)} declares data reaching past the central directory`, {
        path: info.name,
      });
    }
    const next = sorted[i + 1];
    if (next !== undefined && end(info) > next.localHeaderOffset) {
      throw malformed('zip', `entries ${JSON.stringify(info.name)} and ${JSON.stringify(next.name)} overlap`, {
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
  progress?: (infos: readonly ZipEntryInfo[]) => void,
): Promise<{ reader: ZipReader; infos: ZipEntryInfo[] }> {
  const reader = await openZip(source);
  const pacer = new Pacer(signal);
  try {
    const infos = await reader.readEntries(Math.min(limit, reader.entryCount), signal, progress);
    // The layout check sorts every entry: after a long read it starts on a fresh slice.
    await pacer.turn('directory');
    checkLayout(infos, reader.centralDirectoryOffset);
    return { reader, infos };
  } catch (error) {
    reader.close();
    throw error;
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

/**
 * Inventories one entry. Synchronous (undefined) when nothing needs awaiting, as for an entry a
 * worker digested ahead that holds no container; otherwise the promise of the rest.
 */
function inventoryEntry(
  state: InventoryState,
  reader: ZipReader,
  info: ZipEntryInfo,
  prefix: string,
  depth: number,
  byName: () => ReadonlyMap<string, ZipEntryInfo>,
  digested: DigestResult | null | undefined,
): Promise<void> | undefined {
  const inner = logicalPath(info.name);
  const path = nestedPath(prefix, inner);
  const entry = baseEntry(info, path);
  const problem = entryNameProblem(inner);
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
    return undefined;
  }
  if (info.encrypted || (info.compressionMethod !== 0 && info.compressionMethod !== 8)) {
    const why = info.encrypted ? 'is encrypted' : `uses unsupported compression method ${info.compressionMethod}`;
    state.partial(
      `entry ${JSON.stringify(path)} ${why}; its bytes were not read or verified`,
      'unreadable-entry',
      path,
    );
    state.add(entry);
    return undefined;
  }
  if (!state.mayRead(info.uncompressedSize) || (info.kind === 'symlink' && info.uncompressedSize > MAX_LINK_BYTES)) {
    state.partial(
      `byte budget reached at ${JSON.stringify(path)}: max_bytes ${state.budgets.max_bytes}; its bytes were not read`,
      'budget-reached',
      path,
    );
    state.add(entry);
    return undefined;
  }
  const nestable = info.kind === 'file' && problem === null;
  const collect = nestable
    ? { upTo: state.nestedRoom(), containersOnly: true }
    : info.kind === 'symlink'
      ? { upTo: MAX_LINK_BYTES, containersOnly: false }
      : undefined;
  const record = (read: EntryRead): Promise<void> | undefined => {
    const { digest, contradiction } = read;
    state.bytesRead += digest?.size ?? info.uncompressedSize;
    if (digest) {
      entry.sha256 = digest.sha256;
      entry.size = digest.size;
    }
    if (contradiction) {
      entry.integrity = 'contradicted';
      state.contradiction(contradiction);
      state.add(entry);
      return undefined;
    }
    entry.integrity = 'verified';
    if (info.kind === 'symlink' && digest) {
      entry.symlink_target = digest.collected?.toString('utf8') ?? null;
      if (entry.symlink_target !== null) {
        state.link(prefix, 'archive', { path: inner, target: entry.symlink_target, fromRoot: false });
      }
      if (entry.symlink_target !== null && symlinkEscapes(inner, entry.symlink_target)) {
        state.partial(
          `symlink ${JSON.stringify(path)} points outside the archive; it cannot be extracted`,
          'unsafe-path',
          path,
        );
      }
    }
    if (!state.add(entry)) return undefined;
    // Most entries hold no container: nothing to expand, nothing to await.
    if (!nestable || !digest || containerFromHead(digest.head) === null) return undefined;
    return considerNested(state, entry, digest, path, depth, companionIn(state, reader, byName, inner, prefix));
  };
  // A worker's digest is judged here and now; otherwise the entry is read.
  if (digested) {
    const base: Base = { path, provenance: 'zip-central-directory', unpacked: false };
    const read = checked(info, base, fromWorker(info, digested, collect));
    const local = read.contradiction === null ? localHeaderContradiction(reader, info, base) : null;
    return record(
      local === null
        ? read
        : { digest: read.digest, contradiction: { ...local, observedSha256: read.digest?.sha256 ?? null } },
    );
  }
  return readZipEntry(reader, info, path, { signal: state.signal, ...(collect ? { collect } : {}) }).then(record);
}

/**
 * Reads the `.asar.unpacked` companion entries of an ASAR held in this ZIP (an Electron application
 * shipped as a ZIP keeps both side by side). Companion entries are also inventoried in their own right.
 */
function companionIn(
  state: InventoryState,
  reader: ZipReader,
  byName: () => ReadonlyMap<string, ZipEntryInfo>,
  archive: string,
  prefix: string,
): CompanionReader {
  return async (segments, blockSize) => {
    const name = `${archive}.unpacked/${segments.join('/')}`;
    const info = byName().get(name);
    if (info === undefined || info.kind !== 'file' || info.encrypted) return null;
    if (info.compressionMethod !== 0 && info.compressionMethod !== 8) return null;
    if (!state.mayRead(info.uncompressedSize)) return null;
    const read = await readZipEntry(reader, info, nestedPath(prefix, name), { signal: state.signal, blockSize });
    return read.contradiction === null ? read.digest : null;
  };
}

/**
 * What is odd about where an archive lies in its file, stated as limitations of an inventory or
 * extraction (`done`) of the archive at `prefix` (`''` for the file itself): bytes of the file outside it
 * (a stub of `archiveStart` bytes in front, `trailingBytes` after its end record), and a central
 * directory whose records, once all were read, take other than the size its end record declares.
 */
export function archiveLimitations(
  reader: Pick<ZipReader, 'archiveStart' | 'trailingBytes' | 'entryCount' | 'declaredDirectorySize' | 'directorySize'>,
  prefix: string,
  done: 'inventoried' | 'extracted',
): Limitation[] {
  const { archiveStart, trailingBytes, declaredDirectorySize: declared, directorySize: measured } = reader;
  const scope = prefix === '' ? {} : { scope: prefix };
  const limitations: Limitation[] = [];
  if (archiveStart > 0) {
    limitations.push({
      kind: 'archive-prefix',
      message: `The archive starts ${archiveStart} bytes into the file (a self-extractor's stub or a script put in front of it): those bytes are not part of it and were not ${done}, and its offsets were read from its own start, as unzip does.`,
      ...scope,
    });
  }
  if (trailingBytes > 0) {
    limitations.push({
      kind: 'archive-trailing-data',
      message: `${trailingBytes} bytes follow the archive's end record: they are not part of it and were not ${done}.`,
      ...scope,
    });
  }
  if (declared !== null && measured !== null && declared !== measured) {
    const records = reader.entryCount === 1 ? 'its 1 record takes' : `its ${reader.entryCount} records take`;
    limitations.push({
      kind: 'archive-directory-size',
      message: `The archive's end record declares a central directory of ${declared} bytes, but ${records} ${measured} bytes: the directory was read from its declared start by its declared entry count, as unzip does; a reader that trusts the declared size looks for it elsewhere.`,
      ...scope,
    });
  }
  return limitations;
}

/** What is odd about where the archive lies (read as unzip reads it) is stated, not hidden. */
function noteArchiveSpan(state: InventoryState, reader: ZipReader, prefix: string): void {
  state.limitations.push(...archiveLimitations(reader, prefix, 'inventoried'));
}

/** Where a ZIP inventory puts the SHA-256 of the whole file when it hashed it beside its workers. */
export interface WholeFileDigest {
  sha256?: string;
}

/**
 * Inventories a ZIP (from a path or nested bytes) into `state`; returns the package type it identifies.
 * With `whole`, a large archive read by workers is also hashed whole, into it.
 */
export async function inventoryZip(
  state: InventoryState,
  source: string | Buffer,
  prefix: string,
  depth: number,
  whole?: WholeFileDigest,
): Promise<PackageType | null> {
  // A large archive on disk is inflated and hashed on worker threads ahead of the walk; they start
  // while the central directory is read, and take its entries as they are decoded.
  const launching =
    typeof source === 'string' ? DigestPool.launch(source, digestWorkerThreshold.bytes).catch(() => null) : null;
  let started: DigestPool | null = null;
  void launching?.then((pool) => (started = pool));
  let given = 0;
  const feed = (decoded: readonly ZipEntryInfo[], upTo = decoded.length): void => {
    if (started === null) return;
    started.add(digestWorkerTasksIn(decoded, given, upTo, state.budgets.max_nested_bytes));
    given = upTo;
  };
  let directory: Awaited<ReturnType<typeof readDirectory>>;
  try {
    directory = await readDirectory(source, state.remainingEntries(), state.signal, feed);
  } catch (error) {
    await (await launching)?.close();
    throw error;
  }
  const { reader, infos } = directory;
  noteArchiveSpan(state, reader, prefix);
  const launched = (await launching) ?? null;
  let hasher: WholeFileHasher | null = null;
  try {
    let pool: DigestPool | null = null;
    if (launched !== null) {
      started = launched;
      // Workers that started after the directory was read take its entries a slice at a time.
      while (given < infos.length) {
        if (state.pacer.due()) await state.pacer.turn('inventory');
        feed(infos, Math.min(infos.length, given + FEED_SLICE));
      }
      pool = launched.seal();
      // Nothing for the workers (every entry a folder, say): they stop, and the walk reads the rest.
      if (pool.size === 0) {
        await pool.close();
        pool = null;
      }
    }
    if (reader.entryCount > infos.length) state.entryBudget(prefix === '' ? 'the archive' : prefix);
    // The package type is judged from every name, a slice of names at a time.
    const clues = new PackageClues();
    for (const info of infos) {
      if (state.pacer.due()) await state.pacer.turn('inventory');
      clues.add(logicalPath(info.name));
    }
    const packageType = clues.type();
    // Entries by path are needed only to find an ASAR's unpacked companions: made on first use.
    let paths: Map<string, ZipEntryInfo> | null = null;
    const byName = (): ReadonlyMap<string, ZipEntryInfo> =>
      (paths ??= new Map(infos.map((info) => [logicalPath(info.name), info])));
    hasher = pool !== null && whole !== undefined ? WholeFileHasher.open(source as string) : null;
    for (let index = 0; index < infos.length; index += 1) {
      if (state.pacer.due()) await state.pacer.turn('inventory');
      let digested = pool?.take(index);
      if (digested instanceof Promise) {
        // While its batch is on its way, this thread digests the batches after it itself, or else
        // hashes the whole file, a step a turn.
        let arrived = false;
        digested = digested.then((result) => ((arrived = true), result));
        while (!arrived && (pool!.help() || (hasher !== null && hasher.step()))) {
          await nextTurn();
          throwIfAborted(state.signal, 'inventory');
        }
        digested = await digested;
      }
      const rest = inventoryEntry(state, reader, infos[index]!, prefix, depth, byName, digested);
      if (rest !== undefined) await rest;
    }
    if (hasher !== null) {
      while (hasher.step()) if (state.pacer.due()) await state.pacer.turn('inventory');
      const sha256 = hasher.digest();
      if (sha256 !== null) whole!.sha256 = sha256;
    }
    return packageType;
  } finally {
    hasher?.close();
    await launched?.close();
    reader.close();
  }
}

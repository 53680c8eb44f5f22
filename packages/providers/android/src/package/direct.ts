// An APK or app bundle read straight from its ZIP: the central directory lists the entries, and only
// the entries the analysis needs (manifest, resource table, DEX, signatures, XML resources) are
// inflated, CRC-checked and hashed. The other entries are listed as declared, not read.
import { constants, fstatSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { isReaError } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { openZipEntries } from '@rea/artifact';
import type { ArtifactEntry, ZipEntries, ZipEntryRecord } from '@rea/artifact';
import {
  chunkedHashes,
  decodeSigningBlock,
  descriptorReader,
  locateSigningBlock,
  zipEnd,
} from '../format/signingBlock.js';
import type { SigningBlock } from '../format/signingBlock.js';
import { LARGE_MAX } from '../format/scratch.js';
import type { DigestRequest, FileDigests } from '../signing/digestCore.js';
import { WARM_FROM, digestOffThread, digestThreadOnline, warmDigestThread } from '../signing/digestThread.js';
import { crcOfRange, digestFile } from '../signing/fileDigests.js';
import { CheckFailed, directorySizeMisstated, outsideBytes } from '../signing/result.js';
import { dataRange, lazyTable } from './lazyTable.js';
import type { TableCrc, TableInFile } from './lazyTable.js';
import type { LoadedPackage } from './load.js';
import { EntryBudget, MAX_ENTRY_BYTES, MAX_TOTAL_BYTES, assembleUnits, unitOf, wanted } from './units.js';
import type { UnitPlace } from './units.js';

/** A request for the whole file's SHA-256 alone (its size filled in). */
const WHOLE = { block: null, hashes: [], whole: true, crcRange: null } as const;

/** A whole-file SHA-256 begun on the digest thread before the package is read (see {@link beginDigest}). */
export interface EarlyDigest {
  path: string;
  size: number;
  handle: FileHandle;
  job: Promise<FileDigests | null>;
  /** Set once a load has taken the descriptor over (it closes it), or it was let go of. */
  taken: boolean;
}

/**
 * Begins the SHA-256 of the regular file at `path` on the digest thread, when the thread runs (else
 * null), for a load that computes no content digests: given to {@link loadZipDirectly} as `late`, the
 * load takes it over, so the hashing starts before the ZIP's directory is read. The caller lets go of
 * one no load took with {@link letGoOfDigest}.
 */
export async function beginDigest(path: string, signal: AbortSignal | undefined): Promise<EarlyDigest | null> {
  if (!digestThreadOnline() || signal?.aborted) return null;
  // Without waiting for a writer, should the path be a FIFO (the load then refuses it).
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return null;
  try {
    const info = fstatSync(handle.fd);
    const job = info.isFile() ? digestOffThread(handle.fd, { ...WHOLE, size: info.size }, signal) : null;
    if (job !== null) {
      // Its failure is the load's to report (it reads the file again without the thread).
      job.catch(() => {});
      return { path, size: info.size, handle, job, taken: false };
    }
  } catch {
    // Nothing begun: the load reads the file as it would have.
  }
  await handle.close().catch(() => {});
  return null;
}

/** Closes the file of an {@link EarlyDigest} no load took, once the thread has answered for it. */
export function letGoOfDigest(early: EarlyDigest | null): void {
  if (early === null || early.taken) return;
  early.taken = true;
  void Promise.allSettled([early.job]).then(() => early.handle.close().catch(() => {}));
}
const AAB_MANIFEST = /^([^/]+)\/manifest\/AndroidManifest\.xml$/;
const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');

/** What the one read of the file gives (see {@link signingAndDigests}). */
interface WholeFile {
  block: SigningBlock | null;
  sha256: string;
  size: number;
  chunked: Map<string, Buffer>;
  /** Where the resource table left in the file lies, with the CRC-32 observed of it. */
  table: { offset: number; size: number; crc32: number } | null;
}

/** What {@link signingAndDigests} gives. */
interface Digesting {
  /** The signing block and the digests; while `late` is pending, its `sha256` is empty and its `chunked` empty. */
  whole: WholeFile;
  /**
   * Set when the digests are computed on the digest thread while the caller goes on: resolves to them
   * once the thread has answered (the file is closed then), or to null when it could not (the file is
   * shorter than its directory says, the call was cancelled, the thread went away, a read failed): the
   * load is then to be redone. Meanwhile the resource table left in the file is taken as matching its
   * declared CRC-32 (`whole.table`), which the answer confirms or refutes. Never rejects.
   */
  late: Promise<WholeFile | null> | null;
  /** With `late`: where a decode that reads the resource table whole leaves its CRC-32 (see {@link TableInFile.seen}). */
  seen: TableCrc | null;
}

/**
 * The APK Signing Block of the file at `path` (for an APK) and, in one read of the file, its SHA-256,
 * the content digests its v2/v3 signers sign (kept for their verification) and the CRC-32 of the
 * resource table entry `table` (left in the file). `late`: when the digest thread runs, it computes the
 * SHA-256 and content digests, and this thread the CRC-32, while the caller goes on (see
 * {@link Digesting.late}).
 */
async function signingAndDigests(
  path: string,
  apk: boolean,
  table: ZipEntryRecord | null,
  signal: AbortSignal | undefined,
  contentDigests: boolean,
  late: boolean | EarlyDigest,
): Promise<Digesting> {
  const early = typeof late === 'object' && !late.taken && !contentDigests && late.path === path ? late : null;
  if (early !== null) early.taken = true;
  const handle = early?.handle ?? (await open(path, 'r'));
  /** A job of the digest thread's on the descriptor: it is closed only once the thread has answered. */
  let off: Promise<FileDigests | null> | null = early?.job ?? null;
  let handedOver = false;
  try {
    const { size } = fstatSync(handle.fd);
    // Without content digests the thread needs nothing but the size: it starts before the block is found.
    if (late !== false && off === null && !contentDigests) off = digestOffThread(handle.fd, { ...WHOLE, size }, signal);
    // The few small reads that find the block and the table are made at once, not through the thread pool.
    const atOnce = descriptorReader(handle.fd);
    const located = apk ? await locateSigningBlock(atOnce, size) : null;
    const block = apk ? decodeSigningBlock(located) : null;
    const hashes = block === null || !contentDigests ? [] : chunkedHashes(block);
    const where = located !== null && typeof located !== 'string' ? located : null;
    const range =
      table === null ? null : await dataRange(atOnce, table, where?.start ?? (await zipEnd(atOnce, size))?.cd ?? size);
    const found = (crc32: number | null) =>
      range === null || crc32 === null ? null : { offset: range.start, size: range.end - range.start, crc32 };
    if (late !== false && contentDigests) {
      const place = where === null ? null : { start: where.start, cd: where.cd, eocd: where.eocd };
      off = digestOffThread(handle.fd, { size, block: place, hashes, whole: true, crcRange: null }, signal);
    }
    if (off !== null) {
      const seen: TableCrc = { crc32: null };
      // The table's CRC-32 is read here meanwhile (a third of what the thread computes). It begins once the
      // caller's decoding (synchronous, right after this returns) is done, which may have computed it
      // (`seen`); its reads would otherwise take the second core from the thread. A table of up to
      // LARGE_MAX is read at once (a read through the thread pool waits for a core that the thread and this
      // one are using); a larger one asynchronously, so that the call stays cancellable and others are served.
      const crc =
        range === null
          ? null
          : new Promise((resolve) => setImmediate(resolve)).then<{ crc32: number | null }>(() =>
              seen.crc32 !== null
                ? { crc32: seen.crc32 }
                : range.end - range.start <= LARGE_MAX
                  ? crcOfRange(handle.fd, range, signal)
                  : digestFile(handle, size, null, [], false, signal, range),
            );
      const both = Promise.allSettled([off, crc]);
      handedOver = true;
      const settled = both.then(async ([thread, here]): Promise<WholeFile | null> => {
        await handle.close().catch(() => {});
        if (thread.status === 'rejected' || here.status === 'rejected' || thread.value === null) return null;
        // A file whose size changed since the hashing began: read again.
        if (early !== null && early.size !== size) return null;
        const { sha256, chunked } = thread.value;
        return { block, sha256: sha256!, size, chunked, table: found(here.value?.crc32 ?? null) };
      });
      const assumed = table === null ? null : found(table.crc32);
      return { whole: { block, sha256: '', size, chunked: new Map(), table: assumed }, late: settled, seen };
    }
    try {
      const digests = await wholeFileDigests(
        handle,
        { size, block: where, hashes, whole: true, crcRange: range },
        signal,
      );
      const whole = { block, sha256: digests.sha256!, size, chunked: digests.chunked, table: found(digests.crc32) };
      return { whole, late: null, seen: null };
    } catch (error) {
      if (!(error instanceof CheckFailed)) throw error;
      // The directory promises more than the file holds: verification says so when it recomputes.
      const request = { size, block: null, hashes: [], whole: true, crcRange: range };
      const digests = await wholeFileDigests(handle, request, signal);
      return {
        whole: { block, sha256: digests.sha256!, size, chunked: new Map(), table: found(digests.crc32) },
        late: null,
        seen: null,
      };
    }
  } finally {
    if (!handedOver) {
      // The thread may still read the descriptor: it is closed once it has answered.
      if (off !== null) await Promise.allSettled([off]);
      await handle.close();
    }
  }
}

/**
 * `request` over the open file: the SHA-256 and signed digests on the digest thread when it runs (see
 * ../signing/digestThread.ts), while this thread reads the CRC range itself; else all in one read here,
 * after which a large file starts the digest thread for the calls that follow.
 */
async function wholeFileDigests(
  handle: FileHandle,
  request: DigestRequest,
  signal: AbortSignal | undefined,
): Promise<FileDigests> {
  const { size, block, hashes, whole, crcRange } = request;
  // Only the block's place goes to the thread, not its bytes.
  const place = block === null ? null : { start: block.start, cd: block.cd, eocd: block.eocd };
  const off = digestOffThread(handle.fd, { size, block: place, hashes, whole, crcRange: null }, signal);
  if (off !== null) {
    const crc = crcRange === null ? null : digestFile(handle, size, null, [], false, signal, crcRange);
    // Both settle before the descriptor may be closed: the thread reads it until it answers.
    const [thread, here] = await Promise.allSettled([off, crc]);
    if (thread.status === 'rejected') throw thread.reason;
    if (here.status === 'rejected') throw here.reason;
    if (thread.value !== null) return { ...thread.value, crc32: here.value?.crc32 ?? null };
  }
  const digests = await digestFile(handle, size, block, hashes, whole, signal, crcRange);
  if (size >= WARM_FROM) warmDigestThread();
  return digests;
}

function placesOf(paths: ReadonlySet<string>): { format: 'apk' | 'aab'; units: UnitPlace[] } | null {
  if (paths.has('AndroidManifest.xml'))
    return { format: 'apk', units: [{ name: '', kind: 'apk', prefix: '', aabModule: null }] };
  const units: UnitPlace[] = [];
  for (const p of paths) {
    const m = AAB_MANIFEST.exec(p);
    if (m !== null) units.push({ name: m[1]!, kind: 'aab-module', prefix: '', aabModule: m[1]! });
  }
  units.sort((a, b) => a.name.localeCompare(b.name));
  if (units.length > 0) return { format: 'aab', units };
  // DEX files with no manifest (a multidex archive, an APK stripped of its manifest): read as an APK,
  // whose inspection states that no manifest was read.
  if ([...paths].some((p) => /^classes\d*\.dex$/.test(p)))
    return { format: 'apk', units: [{ name: '', kind: 'apk', prefix: '', aabModule: null }] };
  return null;
}

function artifactEntry(record: ZipEntryRecord, read: boolean, sha256: string | null): ArtifactEntry {
  const declared = record.kind === 'file' || record.kind === 'symlink';
  return {
    path: record.path,
    kind: record.kind,
    size: record.size,
    compressed_size: record.compressedSize,
    mode: record.mode,
    symlink_target: null,
    unpacked: false,
    sha256,
    integrity: read ? 'verified' : declared ? 'unchecked' : 'undeclared',
    nested_format: null,
  };
}

/** The entries the analysis reads, within the budgets; what is left out is a limitation. */
function choose(zip: ZipEntries, units: readonly UnitPlace[], limitations: Limitation[]): string[] {
  const budget = new EntryBudget(limitations);
  const select: string[] = [];
  for (const entry of zip.entries) {
    const unit = unitOf(units, entry.path);
    const analyzed = entry.kind === 'file' && unit !== undefined && wanted(entry.path, unit.aabModule);
    if (entry.problem !== null && !analyzed) {
      limitations.push({
        kind: 'unsafe-path',
        message: `Unsafe entry path (${entry.problem}); it is listed, not read.`,
        scope: entry.path,
      });
      continue;
    }
    if (!analyzed) continue;
    if (entry.problem !== null) {
      // An entry the analysis needs whose name is unsafe or ambiguous (two manifests): the read refuses it, typed.
      select.push(entry.path);
    } else if (entry.encrypted || (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)) {
      const why = entry.encrypted ? 'it is encrypted' : `compression method ${entry.compressionMethod}`;
      limitations.push({ kind: 'entry-unreadable', message: `Not read: ${why}.`, scope: entry.path });
    } else {
      const inner = unit?.aabModule ? entry.path.slice(unit.aabModule.length + 1) : entry.path;
      budget.offer(entry.path, inner, entry.size);
    }
  }
  return [...select, ...budget.selected];
}

/**
 * Reads an APK or app bundle from its central directory, inflating only the entries analyzed; null
 * when `path` is not a readable ZIP holding one (the caller then inventories it in full, which also
 * gives the typed error of a malformed or foreign container). `opened` is the ZIP at `path` opened
 * already (its directory is not read again; the caller closes it). `contentDigests` false: the v2/v3
 * content digests are not computed in the read of the file (no signature is to be verified). `late`:
 * the package may come back before its digests are computed (see {@link LoadedPackage.settled}).
 */
export async function loadZipDirectly(
  path: string,
  signal: AbortSignal | undefined,
  opened?: ZipEntries,
  contentDigests = true,
  late: boolean | EarlyDigest = false,
): Promise<LoadedPackage | null> {
  let zip: ZipEntries;
  try {
    zip = opened ?? (await openZipEntries(path, signal ? { signal } : {}));
  } catch (error) {
    if (isReaError(error) && error.code === 'cancelled') throw error;
    return null;
  }
  try {
    const places = zip.complete ? placesOf(new Set(zip.entries.map((e) => e.path))) : null;
    if (places === null) return null;
    const limitations: Limitation[] = [];
    const outside = outsideBytes(zip);
    if (outside !== null) {
      limitations.push({
        kind: 'archive-outside-bytes',
        message: `${outside[0]!.toUpperCase()}${outside.slice(1)}, which are not part of the package; signatures are not checked on such a file (apksigner refuses it).`,
      });
    }
    const misstated = directorySizeMisstated(zip);
    if (misstated !== null) {
      limitations.push({
        kind: 'archive-directory-size',
        message: `${misstated[0]!.toUpperCase()}${misstated.slice(1)}: the directory was read from its declared start by its declared entry count, as unzip does; signatures are not checked on such a file (apksigner refuses it).`,
      });
    }
    const select = choose(zip, places.units, limitations);
    const table = places.format === 'apk' ? lazyTable(zip.entries, select) : null;
    const readEntries = (paths: string[]) =>
      zip.read(paths, {
        maxEntryBytes: MAX_ENTRY_BYTES,
        maxTotalBytes: MAX_TOTAL_BYTES,
        integrityPolicy: 'record-and-continue',
        hash: false,
        ...(signal ? { signal } : {}),
      });
    const [{ whole, late: digesting, seen }, read] = await Promise.all([
      signingAndDigests(path, places.format === 'apk', table, signal, contentDigests, late),
      readEntries(select.filter((p) => p !== table?.path)),
    ]);
    const contradictions: { path: string; algorithm: string; declared: string; observed: string }[] = [
      ...read.contradictions,
    ];
    let inFile: TableInFile | null = null;
    if (table !== null && whole.table === null) {
      // Its data could not be placed from its local header: read it the ordinary way.
      const rest = await readEntries([table.path]);
      for (const [p, c] of rest.contents) read.contents.set(p, c);
      contradictions.push(...rest.contradictions);
    } else if (table !== null && whole.table !== null) {
      const { crc32 } = whole.table;
      if (crc32 === table.crc32)
        inFile = { file: path, offset: whole.table.offset, size: table.size, ...(seen !== null ? { seen } : {}) };
      else
        contradictions.push({ path: table.path, algorithm: 'crc32', declared: hex(table.crc32), observed: hex(crc32) });
    }
    const isRead = (p: string) => read.contents.has(p) || (inFile !== null && p === table?.path);
    for (const c of contradictions) {
      limitations.push({
        kind: 'integrity-contradicted',
        message: `Its bytes contradict their declared ${c.algorithm} (${c.declared}, observed ${c.observed}); not analyzed.`,
        scope: c.path,
      });
    }
    const unread = zip.entries.filter((e) => e.kind === 'file' && !isRead(e.path)).length;
    if (unread > 0) {
      limitations.push({
        kind: 'entries-not-verified',
        message: `${unread} entries were listed from the ZIP central directory only: their bytes were not read, CRC-checked or hashed (inspect_artifact verifies every entry).`,
      });
    }
    const entries = zip.entries.map((e) => {
      const content = read.contents.get(e.path);
      return artifactEntry(e, isRead(e.path), content?.sha256 ?? null);
    });
    const contents = new Map([...read.contents].map(([p, c]) => [p, c.bytes]));
    const units = assembleUnits(places.units, contents, entries);
    if (inFile !== null) units[0]!.resourcesAt = inFile;
    const loaded: LoadedPackage = {
      subject: { format: 'zip', sha256: whole.sha256, size: whole.size },
      format: places.format,
      units,
      signingBlock: whole.block,
      limitations,
      read: contents,
      contentDigests: whole.chunked,
    };
    if (digesting !== null) {
      const assumed = inFile !== null ? table!.crc32 : null;
      loaded.settled = digesting.then((done) => {
        // A resource table analyzed before its CRC-32 was known, which then contradicts it: redone.
        if (done === null || (assumed !== null && done.table?.crc32 !== assumed)) return false;
        loaded.subject.sha256 = done.sha256;
        loaded.contentDigests = done.chunked;
        delete loaded.settled;
        return true;
      });
    }
    return loaded;
  } finally {
    if (opened === undefined) zip.close();
  }
}

// Reading an Android package through @rea/artifact. An APK or app bundle is read from its ZIP central
// directory, with only the entries the analysis needs inflated (see ./direct.ts); a folder of split
// APKs reads each APK that way (see ./folder.ts). Anything else (a ZIP set of split APKs such as an
// XAPK or APKS) goes through the inventory, which says what exists with its integrity
// policy and budgets; the bytes of the entries the analysis reads then come from an extraction of
// just those entries, removed before this returns. A raw DEX file is read directly.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ReaError, fileSystemError, throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import type { ArtifactEntry, ZipEntries } from '@rea/artifact';
import type { SigningBlock } from '../format/signingBlock.js';
import { WARM_FROM, digestOffThread, warmDigestThread } from '../signing/digestThread.js';
import { CheckFailed } from '../signing/result.js';
import { loadZipDirectly } from './direct.js';
import type { EarlyDigest } from './direct.js';
import type { TableInFile } from './lazyTable.js';
import { loadFolder } from './folder.js';
import { EntryBudget, MAX_ENTRY_BYTES, assembleUnits, signingBlockOf, unitOf, wanted } from './units.js';
import type { UnitPlace } from './units.js';

export { MAX_ENTRY_BYTES, MAX_TOTAL_BYTES } from './units.js';

/** One APK (or AAB module) of a package. */
export interface LoadedUnit {
  /** `""` for the package itself, else the path of the nested APK or the AAB module name. */
  name: string;
  kind: 'apk' | 'aab-module' | 'dex';
  manifest: Buffer | null;
  /** True when the manifest and resource table are in the protobuf form of an app bundle. */
  manifestIsProto: boolean;
  /** resources.arsc, or an app bundle module's resources.pb. */
  resources: Buffer | null;
  /** A large stored resources.arsc left in the file and CRC-checked there (`resources` is then null). */
  resourcesAt: TableInFile | null;
  dex: { path: string; bytes: Buffer }[];
  signatureBlocks: { path: string; bytes: Buffer }[];
  /** Compiled XML resources (res/xml*), by their path inside the unit. */
  xmlResources: Map<string, Buffer>;
  entries: ArtifactEntry[];
}

/** A package as read: its subject, units and what was not read. */
export interface LoadedPackage {
  subject: { format: string; sha256: string; size: number };
  format: 'apk' | 'aab' | 'apk-set' | 'dex';
  units: LoadedUnit[];
  signingBlock: SigningBlock | null;
  limitations: Limitation[];
  /**
   * The entries of the ZIP at the package's path that were read whole and matched their CRC-32, by
   * path; signature verification reuses them instead of reading them again. Absent for sets and DEX.
   */
  read?: ReadonlyMap<string, Buffer>;
  /**
   * The APK Signature Scheme content digests of the file at the package's path, by hash, computed in
   * the same read as its SHA-256; signature verification reuses them. Absent for sets and DEX.
   */
  contentDigests?: ReadonlyMap<string, Buffer>;
  /**
   * Present while the whole-file digests are still being computed on the digest thread (a load that
   * was allowed to come back early, see {@link loadPackage}): `subject.sha256` is empty and
   * `contentDigests` empty until it resolves to true, when both are filled in and this field is gone.
   * It resolves to false when the load must be done again without coming back early (the digests
   * could not be computed there, or a resource table analyzed meanwhile contradicts its CRC-32). Never
   * rejects; read nothing of the package's identity before it settles.
   */
  settled?: Promise<boolean>;
}

async function loadDex(path: string, signal: AbortSignal | undefined): Promise<LoadedPackage> {
  const handle = await open(path, 'r');
  let bytes: Buffer;
  let sha256: string | null = null;
  try {
    const info = await handle.stat();
    if (info.size > MAX_ENTRY_BYTES) {
      throw new ReaError('resource_constraint', `${path} is larger than ${MAX_ENTRY_BYTES} bytes.`, {
        details: { path, budget: 'max_entry_bytes', limit: MAX_ENTRY_BYTES },
      });
    }
    throwIfAborted(signal, 'reading');
    // The digest thread, when it runs, hashes the file while this thread reads it.
    const request = { size: info.size, block: null, hashes: [], whole: true, crcRange: null };
    const [thread, read] = await Promise.allSettled([digestOffThread(handle.fd, request, signal), handle.readFile()]);
    if (read.status === 'rejected') throw read.reason;
    if (thread.status === 'rejected' && !(thread.reason instanceof CheckFailed)) throw thread.reason;
    bytes = read.value;
    const after = await handle.stat();
    // Its digest is of the bytes read only when the file did not change between the two reads.
    const unchanged = after.size === bytes.length && after.mtimeMs === info.mtimeMs && after.ctimeMs === info.ctimeMs;
    if (thread.status === 'fulfilled' && unchanged) sha256 = thread.value?.sha256 ?? null;
  } finally {
    await handle.close();
  }
  if (sha256 === null) {
    const { createHash } = await import('node:crypto');
    sha256 = createHash('sha256').update(bytes).digest('hex');
    if (bytes.length >= WARM_FROM) warmDigestThread();
  }
  return {
    subject: { format: 'dex', sha256, size: bytes.length },
    format: 'dex',
    units: [
      {
        name: '',
        kind: 'dex',
        manifest: null,
        manifestIsProto: false,
        resources: null,
        resourcesAt: null,
        dex: [{ path: 'classes.dex', bytes }],
        signatureBlocks: [],
        xmlResources: new Map(),
        entries: [],
      },
    ],
    signingBlock: null,
    limitations: [],
  };
}

/** Whether `path` is a regular file that starts as a DEX file does (four small calls, made at once). */
function isDex(path: string): boolean {
  let fd: number;
  try {
    // Without blocking on a FIFO that has no writer: what is not a regular file is no DEX file.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    if (!fstatSync(fd).isFile()) return false;
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.toString('latin1') === 'dex\n';
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads an APK, an AAB, a split-APK set (XAPK, APKS, a ZIP or folder of APKs) or a DEX file.
 * Errors are those of @rea/artifact (`not_found`, `unsupported_target`, `artifact_integrity_mismatch`,
 * `cancelled`, …); a container holding no Android package is `unsupported_target`. `opened` is the ZIP
 * at `path` opened already by the caller (who closes it): its central directory is not read again.
 * `contentDigests` false: an APK's signature content digests are not computed while it is read.
 * `late`: an APK may come back while the digest thread still computes its digests, so that the caller
 * decodes it meanwhile; it then has {@link LoadedPackage.settled}, which the caller awaits. An
 * {@link EarlyDigest} of `path` as `late` is taken over by the load (its hashing began before).
 */
export async function loadPackage(
  path: string,
  signal: AbortSignal | undefined,
  opened?: ZipEntries,
  contentDigests = true,
  late: boolean | EarlyDigest = false,
): Promise<LoadedPackage> {
  if (isDex(path)) return loadDex(path, signal);
  let info;
  try {
    info = statSync(path);
  } catch (error) {
    throw fileSystemError(error, path, 'read');
  }
  if (info.isDirectory()) return loadFolder(path, signal);
  const direct = await loadZipDirectly(path, signal, opened, contentDigests, late);
  if (direct !== null) return direct;
  const outcome = await inspectArtifact(path, {
    integrityPolicy: 'record-and-continue',
    ...(signal ? { signal } : {}),
  });
  const entries = outcome.inventory.entries;
  const limitations: Limitation[] = [...outcome.limitations];
  const paths = new Set(entries.map((e) => e.path));
  // Units: the package itself, AAB modules, or nested APKs.
  const units: UnitPlace[] = [];
  let format: LoadedPackage['format'];
  if (paths.has('AndroidManifest.xml') || [...paths].some((p) => /^classes\d*\.dex$/.test(p))) {
    // DEX files with no manifest are read as an APK too, whose inspection says no manifest was read.
    format = 'apk';
    units.push({ name: '', kind: 'apk', prefix: '', aabModule: null });
  } else if ([...paths].some((p) => /^[^/]+\/manifest\/AndroidManifest\.xml$/.test(p))) {
    format = 'aab';
    for (const p of paths) {
      const m = /^([^/]+)\/manifest\/AndroidManifest\.xml$/.exec(p);
      if (m !== null) units.push({ name: m[1]!, kind: 'aab-module', prefix: '', aabModule: m[1]! });
    }
  } else {
    format = 'apk-set';
    for (const p of paths) {
      if (p.endsWith('.apk!/AndroidManifest.xml')) {
        const name = p.slice(0, -'!/AndroidManifest.xml'.length);
        units.push({ name, kind: 'apk', prefix: `${name}!/`, aabModule: null });
      }
    }
  }
  if (units.length === 0) {
    throw new ReaError(
      'unsupported_target',
      `${path} holds neither an AndroidManifest.xml nor a classes.dex: it is not an APK, an app bundle, a set of APKs or an archive of DEX files.`,
      {
        details: { path, reason: 'not-android', format: outcome.inventory.format },
        remediation: 'Pass an .apk, .aab, .xapk/.apks, a folder of split APKs, or a .dex file.',
      },
    );
  }
  units.sort((a, b) => a.name.localeCompare(b.name));
  const budget = new EntryBudget(limitations);
  for (const entry of entries) {
    if (entry.kind !== 'file') continue;
    const unit = unitOf(units, entry.path);
    if (unit === undefined || !wanted(entry.path.slice(unit.prefix.length), unit.aabModule)) continue;
    if (entry.integrity === 'contradicted') {
      limitations.push({
        kind: 'integrity-contradicted',
        message: 'Its bytes contradict their declared integrity; not analyzed.',
        scope: entry.path,
      });
    } else {
      budget.offer(entry.path, entry.path.slice(unit.prefix.length), entry.size);
    }
  }
  const select = budget.selected;
  const contents = new Map<string, Buffer>();
  if (select.length > 0) {
    const { outputDirectory } = await extractArtifact(path, {
      select,
      integrityPolicy: 'record-and-continue',
      ...(signal ? { signal } : {}),
    });
    try {
      for (const p of select) {
        throwIfAborted(signal, 'reading');
        const bytes = await readFile(join(outputDirectory, p)).catch(() => null);
        if (bytes === null)
          limitations.push({ kind: 'entry-unreadable', message: 'The extraction did not produce it.', scope: p });
        else contents.set(p, bytes);
      }
    } finally {
      await rm(outputDirectory, { recursive: true, force: true });
    }
  }
  const loaded = assembleUnits(units, contents, entries);
  const signingBlock = format === 'apk' && outcome.inventory.format === 'zip' ? await signingBlockOf(path) : null;
  return { subject: outcome.subject, format, units: loaded, signingBlock, limitations };
}

// Signature verification of one APK or app bundle (a file, or the bytes of an APK nested in a set): the
// JAR signature (v1) and the APK Signature Scheme blocks (v2, v3, v3.1), each reported as verified,
// failed, absent or unsupported with a reason.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { openZipEntries } from '@rea/artifact';
import type { ZipEntries } from '@rea/artifact';
import { bufferReader, readSigningBlock } from '../format/signingBlock.js';
import type { ReadAt, SigningBlock } from '../format/signingBlock.js';
import { MAX_ENTRY_BYTES, MAX_TOTAL_BYTES } from '../package/units.js';
import { verifySigningBlock } from './block.js';
import { verifyJar } from './jar.js';
import { directorySizeMisstated, outcome, outsideBytes } from './result.js';
import type { SchemeVerification } from './result.js';

export type { SchemeVerification } from './result.js';

async function withReader<T>(
  source: string | Buffer,
  given: ReadAt | undefined,
  use: (reader: ReadAt) => Promise<T>,
): Promise<T> {
  if (given !== undefined) return use(given);
  if (Buffer.isBuffer(source)) return use(bufferReader(source));
  const file = await open(source, 'r');
  try {
    return await use(file);
  } finally {
    await file.close();
  }
}

/** What a caller that has read parts of the APK already hands to {@link verifySignatures}. */
export interface VerificationReuse {
  /** Entries of the ZIP read whole and CRC-checked already, by path: they are not read again. */
  known?: ReadonlyMap<string, Buffer>;
  /** The ZIP opened already (its central directory is not read again; the caller closes it). */
  zip?: ZipEntries;
  /** The file opened already, for the signing block and its digests (the caller closes it). */
  file?: ReadAt;
  /** APK Signature Scheme content digests of the file computed already, by hash. */
  digests?: ReadonlyMap<string, Buffer>;
}

/**
 * Opens the ZIP at `path` for {@link loadPackage} and {@link verifySignatures} to share, or returns
 * undefined when it is not a file holding a readable ZIP (they then read it their own way).
 */
export async function openZipForReuse(path: string, signal: AbortSignal | undefined): Promise<ZipEntries | undefined> {
  try {
    return await openZipEntries(path, signal ? { signal } : {});
  } catch (error) {
    if (isReaError(error) && error.code === 'cancelled') throw error;
    return undefined;
  }
}

/**
 * Verifies every signature scheme of the ZIP at `source` (a path, or an APK's bytes), reusing what
 * `reuse` holds. A source that is not a readable ZIP reports v1 as failed with why; cancellation is
 * `cancelled`.
 */
export async function verifySignatures(
  source: string | Buffer,
  signal: AbortSignal | undefined,
  reuse: VerificationReuse = {},
): Promise<SchemeVerification[]> {
  return withReader(source, reuse.file, async (reader) => {
    let zip: ZipEntries | null = reuse.zip ?? null;
    let unopened: unknown = null;
    if (zip === null) {
      try {
        zip = await openZipEntries(source, signal ? { signal } : {});
      } catch (error) {
        if (isReaError(error) && error.code === 'cancelled') throw error;
        unopened = error;
      }
    }
    try {
      const blocks = await verifySigningBlock(reader, signal, reuse.digests);
      const outside = outsideBytes(zip ?? undefined);
      if (outside !== null) {
        // The schemes find what they cover from the file's end and start: bytes outside the archive move
        // it, and apksigner refuses such a file. Nothing is checked, rather than checked wrongly.
        const reason = `${outside}, which moves what the signature schemes cover (apksigner refuses such a file): no signature was checked`;
        return [outcome('v1', 'unsupported', reason), ...blocks.map((b) => outcome(b.scheme, 'unsupported', reason))];
      }
      const misstated = directorySizeMisstated(zip ?? undefined);
      if (misstated !== null) {
        // The schemes cover the directory as its end record delimits it, and apksigner refuses the file:
        // nothing is checked, as for bytes outside the archive.
        const reason = `${misstated} (apksigner refuses such a file): no signature was checked`;
        return [outcome('v1', 'unsupported', reason), ...blocks.map((b) => outcome(b.scheme, 'unsupported', reason))];
      }
      // The schemes whose blocks are present: a JAR signature naming another is stripped of it otherwise.
      const present = new Set(blocks.filter((b) => b.status !== 'absent').map((b) => b.scheme));
      let v1: SchemeVerification;
      try {
        if (zip === null) throw unopened;
        v1 = zip.complete
          ? await verifyJar(zip, signal, reuse.known, present, reader)
          : outcome('v1', 'unsupported', 'too many entries to list');
      } catch (error) {
        if (isReaError(error) && error.code === 'cancelled') throw error;
        v1 = outcome('v1', 'failed', (error as Error).message);
      }
      return [v1, ...blocks];
    } finally {
      if (reuse.zip === undefined) zip?.close();
    }
  });
}

/** The signing of one APK inside a set. */
export interface NestedSigning {
  unit: string;
  signing_block: SigningBlock | null;
  verification: SchemeVerification[];
}

/**
 * Reads and verifies the signing of the APKs `names` inside the set at `path` (a ZIP such as an XAPK
 * or APKS, or a folder). An APK that cannot be read gets every scheme `unsupported` with why. With
 * `verify` false, only the signing blocks are read (`verification` empty).
 */
export async function verifyNested(
  path: string,
  container: string,
  names: readonly string[],
  signal: AbortSignal | undefined,
  verify = true,
): Promise<NestedSigning[]> {
  const one = async (source: string | Buffer, unit: string): Promise<NestedSigning> => ({
    unit,
    signing_block: await withReader(source, undefined, async (r) => readSigningBlock(r, (await r.stat()).size)),
    verification: verify ? await verifySignatures(source, signal) : [],
  });
  const unreadable = (unit: string, why: string): NestedSigning => ({
    unit,
    signing_block: null,
    verification: (['v1', 'v2', 'v3', 'v3.1'] as const).map((s) => outcome(s, 'unsupported', why)),
  });
  if (container === 'directory') return Promise.all(names.map((n) => one(join(path, n), n)));
  if (container !== 'zip')
    return names.map((n) => unreadable(n, `APKs inside a ${container} are not read for signing`));
  const zip = await openZipEntries(path, signal ? { signal } : {});
  try {
    const out: NestedSigning[] = [];
    for (const name of names) {
      try {
        const read = await zip.read([name], {
          maxEntryBytes: MAX_ENTRY_BYTES,
          maxTotalBytes: MAX_TOTAL_BYTES,
          integrityPolicy: 'fail-closed',
          hash: false,
          ...(signal ? { signal } : {}),
        });
        out.push(await one(read.contents.get(name)!.bytes, name));
      } catch (error) {
        if (isReaError(error) && error.code === 'cancelled') throw error;
        out.push(unreadable(name, (error as Error).message));
      }
    }
    return out;
  } finally {
    zip.close();
  }
}

// v1 (JAR) signature verification: each signature block over its .SF file, each .SF over the manifest
// (whole, or section by section), and each manifest digest over its entry's bytes; every entry outside
// the signature files must be covered.
import { hash as digest } from 'node:crypto';
import { isReaError, throwIfAborted } from '@rea/evidence';
import type { ZipEntries, ZipEntryRecord } from '@rea/artifact';
import { zipEnd } from '../format/signingBlock.js';
import type { ReadAt } from '../format/signingBlock.js';
import { MAX_ENTRY_BYTES, MAX_TOTAL_BYTES } from '../package/units.js';
import { digestsOf, parseJarManifest } from './jarManifest.js';
import type { JarManifest, JarSection } from './jarManifest.js';
import { isPlain, readPlainEntries } from './jarEntries.js';
import { verifyPkcs7 } from './pkcs7.js';
import { v1AlgorithmName, v1SignerSdk } from './sdk.js';
import type { SdkRange } from './sdk.js';
import { CheckFailed, outcome } from './result.js';
import type { SchemeVerification } from './result.js';

const MANIFEST = 'META-INF/MANIFEST.MF';
const BLOCK = /^META-INF\/([^/]+)\.(?:RSA|DSA|EC)$/i;
/** Entries that a JAR signature does not cover: the manifest and the signature files themselves. */
const UNCOVERED = /^META-INF\/(?:MANIFEST\.MF|[^/]+\.(?:SF|RSA|DSA|EC)|SIG-[^/]*)$/i;
/** `X-Android-APK-Signed` scheme ids whose signature blocks a JAR signature vouches for. */
const STRIPPABLE: Readonly<Record<string, string>> = { '2': 'v2', '3': 'v3' };
/** Bytes inflated per read while checking entry digests. */
const BATCH_BYTES = 64 * 1024 * 1024;

function matches(hash: string, bytes: Buffer, base64: string): boolean {
  return digest(hash, bytes, 'base64') === base64;
}

/** True when `section` gives a SHA-1 digest (what Android reads of a JAR signature below API 18). */
function hasSha1(section: JarSection, suffix = ''): boolean {
  return digestsOf(section, suffix).some(([h]) => h === 'sha1');
}

/** The manifest entries a .SF covers, after checking its digests of the manifest. */
function coveredBy(sfName: string, sf: JarManifest, manifestBytes: Buffer, manifest: JarManifest): Set<string> {
  const whole = digestsOf(sf.main, '-manifest');
  if (whole.length > 0 && whole.every(([h, v]) => matches(h, manifestBytes, v)))
    return new Set(manifest.entries.keys());
  for (const [name, section] of sf.entries) {
    const inManifest = manifest.entries.get(name);
    if (inManifest === undefined) throw new CheckFailed(`${sfName} names ${name}, which the manifest does not list`);
    const digests = digestsOf(section);
    const bytes = manifestBytes.subarray(inManifest.start, inManifest.end);
    if (digests.length === 0 || !digests.every(([h, v]) => matches(h, bytes, v)))
      throw new CheckFailed(`${sfName}: the digest of the manifest section of ${name} does not match`);
  }
  return new Set(sf.entries.keys());
}

/**
 * Verifies the JAR signature of the open ZIP `zip`: `absent` without META-INF signature files,
 * `unsupported` past the read budgets, else `verified` or `failed` with the first failing check.
 * Entries in `known` (read whole and CRC-checked already, by path) are taken from there. A signature
 * file whose `X-Android-APK-Signed` names APK Signature Scheme v2 or v3 fails unless that scheme's block
 * is in `blocks` (`v2`, `v3`): the newer signature was stripped to fall back on this one. `file` is
 * the ZIP's bytes (a file or a buffer reader): given, its plain entries are read from it in one pass.
 */
export async function verifyJar(
  zip: ZipEntries,
  signal: AbortSignal | undefined,
  known: ReadonlyMap<string, Buffer> = new Map(),
  blocks: ReadonlySet<string> = new Set(),
  file?: ReadAt,
): Promise<SchemeVerification> {
  const files = zip.entries.filter((e) => e.kind === 'file');
  const present = new Set(files.map((e) => e.path));
  // A signer is a signature file with its block; a block or .SF without the other is ignored.
  const pairs = files.flatMap((e) => {
    const m = BLOCK.exec(e.path);
    const sf = m === null ? '' : `META-INF/${m[1]}.SF`;
    return m !== null && present.has(sf) ? [{ block: e.path, sf }] : [];
  });
  if (pairs.length === 0) {
    const why = present.has(MANIFEST) ? `${MANIFEST} is present without a signature file and its block` : null;
    return outcome('v1', 'absent', why);
  }
  const total = files.reduce((n, e) => n + e.size, 0);
  if (total > MAX_TOTAL_BYTES || files.some((e) => e.size > MAX_ENTRY_BYTES))
    return outcome('v1', 'unsupported', 'the entries exceed the read budget');
  const read = async (paths: string[]): Promise<Map<string, Buffer>> => {
    const out = new Map<string, Buffer>();
    const rest = paths.filter((p) => !known.has(p));
    const contents =
      rest.length === 0
        ? new Map()
        : (
            await zip.read(rest, {
              maxEntryBytes: MAX_ENTRY_BYTES,
              maxTotalBytes: MAX_TOTAL_BYTES,
              integrityPolicy: 'fail-closed',
              hash: false,
              ...(signal ? { signal } : {}),
            })
          ).contents;
    for (const p of paths) {
      const bytes = known.get(p) ?? contents.get(p)?.bytes;
      if (bytes !== undefined) out.set(p, bytes);
    }
    return out;
  };
  try {
    if (!present.has(MANIFEST)) throw new CheckFailed(`${MANIFEST} is missing`);
    const head = await read([MANIFEST, ...pairs.flatMap((p) => [p.sf, p.block])]);
    const manifestBytes = head.get(MANIFEST)!;
    const manifest = parseJarManifest(manifestBytes);
    if (manifest.duplicates.length > 0) throw new CheckFailed(`the manifest lists ${manifest.duplicates[0]} twice`);
    const accepted: SdkRange[] = [];
    let covered: Set<string> | undefined;
    const manifestSha1 = [...manifest.entries.values()].every((e) => hasSha1(e));
    for (const pair of pairs) {
      const sfBytes = head.get(pair.sf)!;
      const sf = parseJarManifest(sfBytes);
      const sha1 = manifestSha1 && (hasSha1(sf.main, '-manifest') || [...sf.entries.values()].every((e) => hasSha1(e)));
      for (const s of verifyPkcs7(head.get(pair.block)!, sfBytes)) {
        const range = v1SignerSdk(s.digest, s.signature, sha1);
        // A signer no Android version accepts fails the scheme on every one, as apksigner says.
        if (range.min_sdk === null)
          throw new CheckFailed(
            `${pair.block} is signed with ${v1AlgorithmName(s.digest, s.signature)}, which no Android API level accepts for JAR signatures`,
          );
        accepted.push(range);
      }
      for (const id of (sf.main.attributes.get('x-android-apk-signed') ?? '').split(',')) {
        const scheme = STRIPPABLE[id.trim()];
        if (scheme !== undefined && !blocks.has(scheme))
          throw new CheckFailed(
            `${pair.sf} says the APK is also signed with APK Signature Scheme ${scheme}, whose block is missing (stripped)`,
          );
      }
      const mine = coveredBy(pair.sf, sf, manifestBytes, manifest);
      const before: Set<string> | undefined = covered;
      covered = before === undefined ? mine : new Set([...before].filter((n) => mine.has(n)));
    }
    const signed = files.filter((e) => !UNCOVERED.test(e.path));
    for (const e of signed) {
      if (!manifest.entries.has(e.path)) throw new CheckFailed(`${e.path} is not listed in the manifest`);
      if (covered?.has(e.path) !== true) throw new CheckFailed(`${e.path} is not covered by every signer`);
    }
    for (const name of manifest.entries.keys()) {
      if (!present.has(name) && !name.endsWith('/'))
        throw new CheckFailed(`the manifest lists ${name}, which is not in the archive`);
    }
    const declared = new Map<string, [string, string][]>();
    const digestsFor = (path: string) => {
      let d = declared.get(path);
      if (d === undefined) declared.set(path, (d = digestsOf(manifest.entries.get(path)!)));
      return d;
    };
    const hashesOf = (path: string) => digestsFor(path).map(([h]) => h);
    /** Checks the manifest's digests of `path` against `digestOf(hash)` (base64) of its bytes. */
    const checkDigests = (path: string, digestOf: (hash: string) => string): void => {
      const digests = digestsFor(path);
      if (digests.length === 0) throw new CheckFailed(`the manifest gives ${path} no digest`);
      if (!digests.every(([h, v]) => digestOf(h) === v))
        throw new CheckFailed(`the digest of ${path} does not match its bytes`);
    };
    const check = (path: string, bytes: Buffer) => checkDigests(path, (h) => digest(h, bytes, 'base64'));
    // Plain entries are read through one window of the file when it is at hand; the rest (and all of
    // them otherwise) through the ZIP reader, a batch at a time.
    const fast = (e: ZipEntryRecord) => file !== undefined && !known.has(e.path) && isPlain(e);
    const slow = signed.filter((e) => !fast(e));
    for (let at = 0; at < slow.length;) {
      throwIfAborted(signal, 'verifying');
      const batch: string[] = [];
      let bytes = 0;
      while (at < slow.length && (batch.length === 0 || bytes + slow[at]!.size <= BATCH_BYTES)) {
        bytes += slow[at]!.size;
        batch.push(slow[at++]!.path);
      }
      for (const [path, bytes] of await read(batch)) check(path, bytes);
    }
    if (file !== undefined) {
      const { size } = await file.stat();
      const end = await zipEnd(file, size);
      const limit = end === null || end.cd === 0xffffffff ? size : end.cd;
      await readPlainEntries(file, signed.filter(fast), limit, signal, hashesOf, checkDigests);
    }
    return outcome('v1', 'verified', null, accepted.length, accepted);
  } catch (error) {
    if (error instanceof CheckFailed) return outcome('v1', 'failed', error.message, pairs.length);
    if (isReaError(error) && error.code === 'cancelled') throw error;
    return outcome('v1', 'failed', (error as Error).message, pairs.length);
  }
}

import { closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { extname } from 'node:path';
import { ReaError, fileSystemError } from '@rea/evidence';

/** What `rea analyze` found at a path. */
export type TargetKind =
  | 'native-binary'
  | 'archive'
  | 'asar'
  | 'apk'
  | 'aab'
  | 'apk-set'
  | 'dex'
  | 'directory'
  | 'evidence-bundle'
  | 'javascript'
  | 'file';

/** The detection result: the kind and, for native binaries, the container format. */
export interface DetectedTarget {
  path: string;
  kind: TargetKind;
  /**
   * elf | pe | macho | zip | asar | dex | directory | json | javascript | unknown; in `rea analyze`'s report a
   * file's type as the inventory read it from its magic bytes (tar, gzip, pdf, png, …) in place of unknown.
   */
  format: string;
}

/** ZIP-based Android packages by their name: an APK, an app bundle, or a set of split APKs. */
const ANDROID_ZIPS: ReadonlyMap<string, TargetKind> = new Map([
  ['.apk', 'apk'],
  ['.aab', 'aab'],
  ['.apks', 'apk-set'],
  ['.xapk', 'apk-set'],
]);

const MACHO = new Set([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xbebafeca]);

/**
 * True when the folder at `path` is a set of split APKs (base.apk and its splits, as `adb pull` of an
 * installed app gives them): it holds an .apk file, and every other file in it (dot files aside) is
 * one too. Subfolders (lib/, oat/ of an installed app) do not count.
 */
async function isSplitApkFolder(path: string): Promise<boolean> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  let apks = 0;
  for (const entry of entries) {
    if (entry.isDirectory() || entry.name.startsWith('.')) continue;
    if (!/\.apk$/i.test(entry.name)) return false;
    apks += 1;
  }
  return apks > 0;
}

/** The `format` key of an Evidence bundle, with its value. */
const BUNDLE_FORMAT_KEY = /"format"\s*:\s*"rea-evidence-bundle"/;

/**
 * ASAR: a Chromium pickle of the header's size (its first field, 4, is the size of its payload), then a
 * pickle holding the JSON header as a string, whose sizes nest, and the JSON object itself. The header's
 * keys may come in any order (`{"files"` first is only the usual one).
 */
function looksLikeAsar(bytes: Buffer): boolean {
  if (bytes.length < 17 || bytes.readUInt32LE(0) !== 4) return false;
  const headerPickle = bytes.readUInt32LE(4);
  const payload = bytes.readUInt32LE(8);
  const json = bytes.readInt32LE(12);
  return payload + 4 <= headerPickle && json >= 2 && json + 4 <= payload && bytes[16] === 0x7b;
}

/**
 * Classifies `path` by its bytes (never by name alone): ELF, PE or Mach-O magic is a native binary;
 * a ZIP signature is an archive (an APK, app bundle or split-APK set when it is named .apk, .aab,
 * .apks or .xapk); DEX magic is a DEX file; an ASAR pickle header is an ASAR; a JSON object whose
 * `format` is `rea-evidence-bundle` is an evidence bundle; a folder is a directory (a split-APK set when its files are
 * all APKs); any other file named .js, .mjs or .cjs is a JavaScript file.
 * A missing path is `not_found`; an unreadable one `access_denied` or `target_unavailable`.
 */
export async function detectTarget(path: string): Promise<DetectedTarget> {
  // A status and a 4 KiB read: synchronous calls of microseconds, not trips through the thread pool.
  let info;
  try {
    info = statSync(path);
  } catch (error) {
    throw fileSystemError(error, path, 'read');
  }
  if (info.isDirectory()) {
    return { path, kind: (await isSplitApkFolder(path)) ? 'apk-set' : 'directory', format: 'directory' };
  }
  if (!info.isFile()) {
    // A FIFO, socket or device: reading one can wait for a writer forever, or never end.
    throw new ReaError('unsupported_target', `${path} is neither a regular file nor a directory.`, {
      details: { path, format: 'special', reason: 'not-a-file' },
      remediation: 'Pass the path of a file or folder to analyze.',
    });
  }
  const head = Buffer.alloc(4096);
  let length: number;
  try {
    // Opened without waiting: a FIFO put in the file's place since its status was read is not waited on.
    const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      length = readSync(descriptor, head, 0, head.length, 0);
    } finally {
      closeSync(descriptor);
    }
  } catch (error) {
    throw fileSystemError(error, path, 'read');
  }
  const bytes = head.subarray(0, length);
  if (length >= 4 && bytes.readUInt32BE(0) === 0x7f454c46) return { path, kind: 'native-binary', format: 'elf' };
  if (length >= 64 && bytes[0] === 0x4d && bytes[1] === 0x5a) {
    const pe = bytes.readUInt32LE(0x3c);
    if (pe + 4 > length || bytes.readUInt32BE(pe) === 0x50450000) return { path, kind: 'native-binary', format: 'pe' };
  }
  if (length >= 8 && MACHO.has(bytes.readUInt32BE(0))) {
    // 0xcafebabe is also a Java class file; fat Mach-O headers have a small architecture count.
    const fat = bytes.readUInt32BE(0) === 0xcafebabe;
    if (!fat || bytes.readUInt32BE(4) < 32) return { path, kind: 'native-binary', format: 'macho' };
  }
  if (length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5)) {
    return { path, kind: ANDROID_ZIPS.get(extname(path).toLowerCase()) ?? 'archive', format: 'zip' };
  }
  // DEX: "dex\n", a three-digit version, NUL.
  if (length >= 8 && /^dex\n\d{3}\0$/.test(bytes.subarray(0, 8).toString('latin1'))) {
    return { path, kind: 'dex', format: 'dex' };
  }
  if (looksLikeAsar(bytes)) return { path, kind: 'asar', format: 'asar' };
  // An Evidence bundle names its format (first, as REA writes it: canonical JSON, keys in order).
  const text = bytes.toString('utf8').trimStart();
  if (text.startsWith('{') && BUNDLE_FORMAT_KEY.test(text)) return { path, kind: 'evidence-bundle', format: 'json' };
  if (/\.[cm]?js$/i.test(path)) return { path, kind: 'javascript', format: 'javascript' };
  return { path, kind: 'file', format: 'unknown' };
}

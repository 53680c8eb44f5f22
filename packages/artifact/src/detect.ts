import type { ContainerFormat, PackageType } from './schemas.js';
import { looksLikeAsar } from './engine/asar.js';
import { fileHoldsZip } from './engine/zipSpan.js';

/** The container format a head of bytes announces (ZIP local header or empty archive, or ASAR). */
export function containerFromHead(head: Buffer): Exclude<ContainerFormat, 'directory' | 'dmg' | 'file'> | null {
  if (head.length >= 4 && head.readUInt32LE(0) === 0x04034b50) return 'zip';
  if (head.length >= 4 && head.readUInt32LE(0) === 0x06054b50) return 'zip';
  // The pickle's sizes, and the JSON object of the header they hold where the head reaches it (a nested
  // entry's head is its first 16 bytes).
  if (looksLikeAsar(head) && (head.length <= 16 || head[16] === 0x7b)) return 'asar';
  return null;
}

/** True when the tail of a file holds a ZIP end-of-central-directory record (archives with a prefix). */
export function tailHasZipEnd(tail: Buffer): boolean {
  // Each candidate signature, from the end, found by Buffer's native search (a 64 KiB tail is
  // otherwise 65,000 reads in JavaScript for every file that is not an archive).
  if (tail.length < 22) return false;
  for (let i = tail.lastIndexOf(ZIP_END, tail.length - 22); i >= 0; i = i > 0 ? tail.lastIndexOf(ZIP_END, i - 1) : -1) {
    if (i + 22 + tail.readUInt16LE(i + 20) === tail.length) return true;
  }
  return false;
}

/**
 * True when the file at `path` (`size` bytes, starting with `head`, ending with `tail`) is to be read as
 * a ZIP found from its end: one whose end record ends the file, or one behind other bytes or with
 * bytes after it that unzip reads (see fileHoldsZip). A DMG image or a tar archive that merely carries
 * a ZIP near its end is not one.
 */
export function holdsZipAtEnd(path: string, size: number, head: Buffer, tail: Buffer): boolean {
  if (tailHasZipEnd(tail)) return true;
  if (tailIsDmg(tail) || head.subarray(257, 262).toString('latin1') === 'ustar') return false;
  return fileHoldsZip(path, size, tail);
}

/** The signature of a ZIP end-of-central-directory record ("PK\x05\x06"). */
const ZIP_END = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

/** True when the last 512 bytes are a UDIF ("koly") trailer: a DMG image. */
export function tailIsDmg(tail: Buffer): boolean {
  if (tail.length < 512) return false;
  const trailer = tail.subarray(tail.length - 512);
  // "koly", then the trailer's version (4) and its own length (512), big-endian.
  return (
    trailer.toString('latin1', 0, 4) === 'koly' && trailer.readUInt32BE(4) === 4 && trailer.readUInt32BE(8) === 512
  );
}

const MAGIC: Array<[string, (h: Buffer) => boolean]> = [
  ['elf', (h) => h.subarray(0, 4).toString('latin1') === '\x7fELF'],
  ['mach-o', (h) => h.length >= 4 && [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe].includes(h.readUInt32BE(0))],
  ['mach-o-universal', (h) => h.length >= 8 && h.readUInt32BE(0) === 0xcafebabe && h.readUInt32BE(4) < 64],
  ['java-class', (h) => h.length >= 8 && h.readUInt32BE(0) === 0xcafebabe],
  ['pe', (h) => h.subarray(0, 2).toString('latin1') === 'MZ'],
  ['dex', (h) => h.subarray(0, 4).toString('latin1') === 'dex\n'],
  ['wasm', (h) => h.subarray(0, 4).toString('latin1') === '\0asm'],
  ['gzip', (h) => h[0] === 0x1f && h[1] === 0x8b],
  ['xz', (h) => h.subarray(0, 6).toString('latin1') === '\xfd7zXZ\0'],
  ['bzip2', (h) => h.subarray(0, 3).toString('latin1') === 'BZh'],
  ['7z', (h) => h.subarray(0, 6).toString('latin1') === "7z\xbc\xaf'\x1c"],
  ['rar', (h) => h.subarray(0, 4).toString('latin1') === 'Rar!'],
  ['zstd', (h) => h.length >= 4 && h.readUInt32LE(0) === 0xfd2fb528],
  ['pdf', (h) => h.subarray(0, 5).toString('latin1') === '%PDF-'],
  ['png', (h) => h.subarray(0, 8).toString('latin1') === '\x89PNG\r\n\x1a\n'],
  ['jpeg', (h) => h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff],
  ['sqlite', (h) => h.subarray(0, 16).toString('latin1') === 'SQLite format 3\0'],
  ['ar', (h) => h.subarray(0, 8).toString('latin1') === '!<arch>\n'],
  ['tar', (h) => h.subarray(257, 262).toString('latin1') === 'ustar'],
  ['shebang-script', (h) => h.subarray(0, 2).toString('latin1') === '#!'],
];

/** The magic-byte type of a single file from its first 512 bytes, or "unknown". */
export function fileTypeFromHead(head: Buffer): string {
  for (const [name, test] of MAGIC) if (test(head)) return name;
  return 'unknown';
}

/**
 * What identifies a ZIP-based package, gathered one name at a time (so a caller can pace a long walk):
 * the names themselves, and whether any name matched the patterns a package type is known by.
 */
export class PackageClues {
  readonly names = new Set<string>();
  private dex = false;
  private app = false;
  private nuspec = false;
  private wheel = false;

  /** Notes one logical path. */
  add(name: string): void {
    this.names.add(name);
    // The cheap tests first: most names match no pattern at all.
    if (!this.dex && name.startsWith('classes') && /^classes\d*\.dex$/.test(name)) this.dex = true;
    if (!this.app && name.startsWith('Payload/') && /^Payload\/[^/]+\.app\//.test(name)) this.app = true;
    if (!this.nuspec && name.endsWith('.nuspec') && /^[^/]+\.nuspec$/.test(name)) this.nuspec = true;
    if (!this.wheel && name.endsWith('/WHEEL') && /^[^/]+\.dist-info\/WHEEL$/.test(name)) this.wheel = true;
  }

  /** The package type the names identify (never the file name), or null. */
  type(): PackageType | null {
    const has = (name: string): boolean => this.names.has(name);
    if (has('AndroidManifest.xml') && has('classes.jar')) return 'aar';
    if (has('AndroidManifest.xml') && (this.dex || has('resources.arsc'))) return 'apk';
    if (this.app) return 'ipa';
    if (has('AppxManifest.xml'))
      return has('AppxMetadata/CodeIntegrity.cat') || has('AppxSignature.p7x') ? 'msix' : 'appx';
    if (has('extension.vsixmanifest')) return 'vsix';
    if (this.nuspec && has('[Content_Types].xml')) return 'nuget';
    if (this.wheel) return 'wheel';
    if (has('META-INF/MANIFEST.MF')) return 'jar';
    return null;
  }
}

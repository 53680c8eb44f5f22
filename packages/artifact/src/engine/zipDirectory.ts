// Decodes a ZIP central directory straight from its bytes, a window (about a megabyte) at a time, with
// the library's rules and messages (record signature, strong encryption, extra fields, zip64 sizes,
// stored sizes) and none of its per-entry reads, buffers, objects and events.
import yauzl from 'yauzl';
import type { Entry } from 'yauzl';

/** One central-directory entry, decoded but not judged. */
export interface ZipEntryInfo {
  /** Decoded name with backslashes kept as written (judged by the caller). */
  name: string;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  compressionMethod: number;
  encrypted: boolean;
  /** Unix mode when the entry was made on Unix, else null. */
  mode: number | null;
  kind: 'file' | 'directory' | 'symlink' | 'other';
  /** Where the local header lies in the file (the archive's own offset plus any bytes before the archive). */
  localHeaderOffset: number;
  nameLength: number;
  /**
   * The name's bytes as written, a character a byte, when they read otherwise than `name` (a name that
   * is not ASCII, or one an Info-ZIP Unicode path field replaces); null when `name` is them. The local
   * header's name is compared with them.
   */
  rawName: string | null;
  /** The general-purpose bit flags of the record. */
  flags: number;
}

/** Reads at least `length` bytes at `position` (more when convenient); rejects `unexpected EOF` short of them. */
export type Fetch = (position: number, length: number) => Promise<Buffer>;

const SIGNATURE = 0x02014b50;
const FIXED = 46;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

// Present in yauzl 3 but missing from its published types.
type NameDecoder = (flags: number, raw: Buffer, extra: Entry['extraFields'], strict: boolean) => string;
type ExtraParser = (extra: Buffer) => Entry['extraFields'];
const library = yauzl as unknown as { getFileNameLowLevel: NameDecoder; parseExtraFields: ExtraParser };

// Field reads on bytes already known to lie inside the window: plain index arithmetic, without the
// bounds checks and argument validation of Buffer's readers (a decoded record is bounds-checked whole).
function u16(w: Buffer, o: number): number {
  return w[o]! | (w[o + 1]! << 8);
}

function u32(w: Buffer, o: number): number {
  return (w[o]! | (w[o + 1]! << 8) | (w[o + 2]! << 16)) + w[o + 3]! * 0x1000000;
}

function readUInt64LE(buffer: Buffer, offset: number): number {
  return u32(buffer, offset) + 0x100000000 * u32(buffer, offset + 4);
}

/**
 * An entry name: the UTF-8 flag or Info-ZIP Unicode path field when present; otherwise, like
 * Info-ZIP and macOS, UTF-8 when the bytes are valid UTF-8, and CP437 as the format specifies if not.
 */
function decodeName(
  window: Buffer,
  start: number,
  end: number,
  flags: number,
  extraEnd: number,
  unicode: boolean,
): string {
  let ascii = true;
  for (let i = start; i < end && ascii; i += 1) ascii = window[i]! < 0x80;
  // Fast paths: plain ASCII reads the same in every encoding; the UTF-8 flag means UTF-8.
  if (ascii && !unicode) return window.toString('latin1', start, end);
  if ((flags & 0x800) !== 0 && !unicode) return window.toString('utf8', start, end);
  const raw = window.subarray(start, end);
  const decoded = library.getFileNameLowLevel(
    flags,
    raw,
    library.parseExtraFields(window.subarray(end, extraEnd)),
    true,
  );
  if ((flags & 0x800) !== 0 || unicode || ascii) return decoded;
  try {
    return strictUtf8.decode(raw);
  } catch {
    return decoded;
  }
}

const S_IFMT = 0o170000;

function kindOf(name: string, mode: number | null, attributes: number): ZipEntryInfo['kind'] {
  if (mode !== null && (mode & S_IFMT) !== 0) {
    const type = mode & S_IFMT;
    if (type === 0o120000) return 'symlink';
    if (type === 0o040000) return 'directory';
    if (type === 0o100000) return name.endsWith('/') ? 'directory' : 'file';
    return 'other';
  }
  if (name.endsWith('/') || (attributes & 0x10) !== 0) return 'directory';
  return 'file';
}

/** Whether `name` is the bytes `w[start, end)` read a character a byte (compared without a copy). */
function sameAsBytes(name: string, w: Buffer, start: number, end: number): boolean {
  if (name.length !== end - start) return false;
  for (let i = 0; i < name.length; i += 1) if (name.charCodeAt(i) !== w[start + i]) return false;
  return true;
}

/**
 * Decodes the record at `o` of `w` (wholly inside it) whose variable part is `n`, `m`, `k` bytes, in an
 * archive that starts `base` bytes into its file.
 */
function decodeRecord(w: Buffer, o: number, base: number): ZipEntryInfo {
  const generalPurposeBitFlag = u16(w, o + 8);
  const compressionMethod = u16(w, o + 10);
  let compressedSize = u32(w, o + 20);
  let uncompressedSize = u32(w, o + 24);
  const n = u16(w, o + 28);
  const m = u16(w, o + 30);
  let relativeOffsetOfLocalHeader = u32(w, o + 42);
  const extraStart = o + FIXED + n;
  let zip64: { start: number; size: number } | null = null;
  let unicode = false;
  for (let i = 0; i < m - 3;) {
    const id = u16(w, extraStart + i);
    const size = u16(w, extraStart + i + 2);
    if (i + 4 + size > m) throw new Error('extra field length exceeds extra field buffer size');
    if (id === 0x0001 && zip64 === null) zip64 = { start: extraStart + i + 4, size };
    if (id === 0x7075) unicode = true;
    i += 4 + size;
  }
  const name = decodeName(w, o + FIXED, extraStart, generalPurposeBitFlag, extraStart + m, unicode);
  if (zip64 !== null) {
    let at = 0;
    const wide = (what: string): number => {
      if (at + 8 > zip64!.size) throw new Error(`zip64 extended information extra field does not include ${what}`);
      const value = readUInt64LE(w, zip64!.start + at);
      at += 8;
      return value;
    };
    if (uncompressedSize === 0xffffffff) uncompressedSize = wide('uncompressed size');
    if (compressedSize === 0xffffffff) compressedSize = wide('compressed size');
    if (relativeOffsetOfLocalHeader === 0xffffffff) relativeOffsetOfLocalHeader = wide('relative header offset');
  }
  // A stored entry whose two sizes differ is not refused here, as the library would refuse the whole
  // archive: reading it observes how many bytes it holds, a size contradiction of that entry alone,
  // which the integrity policy decides (record-and-continue records it and goes on).
  // One object per entry, built once: a large directory makes tens of thousands of them.
  const attributes = u32(w, o + 38);
  const mode = w[o + 5] === 3 ? attributes >>> 16 : null;
  return {
    name,
    crc32: u32(w, o + 16),
    compressedSize,
    uncompressedSize,
    compressionMethod,
    encrypted: (generalPurposeBitFlag & 0x1) !== 0,
    mode,
    kind: kindOf(name, mode, attributes),
    localHeaderOffset: base + relativeOffsetOfLocalHeader,
    nameLength: n,
    rawName: sameAsBytes(name, w, o + FIXED, extraStart) ? null : w.toString('latin1', o + FIXED, extraStart),
    flags: generalPurposeBitFlag,
  };
}

/**
 * Decodes `count` records from `start` (a file offset), handing each to `each`; every `every` records it
 * awaits `checkpoint` (a turn of the event loop, a cancel). Offsets in the records are the archive's,
 * which starts `base` bytes into the file. Faults throw the library's own messages. Resolves to where
 * the last record read ends (a file offset).
 */
export async function readCentralDirectory(
  fetch: Fetch,
  start: number,
  count: number,
  each: (info: ZipEntryInfo) => void,
  checkpoint: () => Promise<void>,
  base = 0,
  every = 256,
): Promise<number> {
  let window: Buffer = Buffer.alloc(0);
  let windowStart = start;
  let cursor = start;
  const have = (length: number): boolean => cursor + length <= windowStart + window.length;
  const load = async (length: number): Promise<void> => {
    window = await fetch(cursor, length);
    windowStart = cursor;
  };
  for (let read = 0; read < count; read += 1) {
    if (read % every === every - 1) await checkpoint();
    if (!have(FIXED)) await load(FIXED);
    let o = cursor - windowStart;
    const signature = u32(window, o);
    if (signature !== SIGNATURE)
      throw new Error(`invalid central directory file header signature: 0x${signature.toString(16)}`);
    if ((u16(window, o + 8) & 0x40) !== 0) throw new Error('strong encryption is not supported');
    const length = FIXED + u16(window, o + 28) + u16(window, o + 30) + u16(window, o + 32);
    if (!have(length)) {
      await load(length);
      o = 0;
    }
    each(decodeRecord(window, o, base));
    cursor += length;
  }
  return cursor;
}

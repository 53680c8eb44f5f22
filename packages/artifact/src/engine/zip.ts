// The one module that talks to yauzl. Everything else sees ZipReader and ZipEntryInfo.
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { close, fstat, open as openFd, read as readFd, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import { isReaError } from '@rea/evidence';
import type { ReaError } from '@rea/evidence';
import { malformed } from '../errors.js';
import { Pacer } from '../layout/cooperative.js';
import { ReusableInflater } from './inflate.js';
import { readCentralDirectory } from './zipDirectory.js';
import { END_RECORD, END_SEARCH, declaredDirectorySize, locateArchive, spanOfFile } from './zipSpan.js';
import type { ArchiveSpan } from './zipSpan.js';
import type { Fetch, ZipEntryInfo } from './zipDirectory.js';

export type { ZipEntryInfo } from './zipDirectory.js';

/**
 * How many bytes an entry that contradicts its declared size holds: `exact` when every byte was read,
 * else at least `observed` (reading stopped once it passed the declared size).
 */
export interface ObservedSize {
  observed: number;
  exact: boolean;
}

/** The whole decoded bytes of a small entry, or what contradicted its declared size or encoding. */
export type SmallRead = { bytes: Buffer } | ({ fault: 'size' } & ObservedSize) | { fault: 'data'; message: string };

/** Entries at most this large (both sizes) are read whole from the block cache and inflated in one call. */
export const SMALL_ENTRY_BYTES = 1 << 20;

/** An open ZIP: its entry count, its central directory, and entry streams. */
export interface ZipReader {
  readonly entryCount: number;
  /** Where the central directory starts in the file. */
  readonly centralDirectoryOffset: number;
  /** Bytes of the file before the archive (a self-extractor's stub, a script): its offsets count from there. */
  readonly archiveStart: number;
  /** Bytes of the file after the archive's end record (appended data). */
  readonly trailingBytes: number;
  /** The central directory's size as its end record (or zip64 end record) gives it; null when unreadable. */
  readonly declaredDirectorySize: number | null;
  /** The bytes the central directory's records take, once {@link readEntries} has read every one; else null. */
  readonly directorySize: number | null;
  /**
   * Reads up to `limit` central-directory entries in order, giving the event loop a turn every few
   * milliseconds (a cached directory otherwise decodes in one go) and throwing `cancelled` when
   * `signal` is aborted.
   */
  readEntries(
    limit: number,
    signal?: AbortSignal,
    /** Called now and then with the entries decoded so far (the same array, growing). */
    progress?: (infos: readonly ZipEntryInfo[]) => void,
  ): Promise<ZipEntryInfo[]>;
  /** The decoded (inflated) bytes of an entry; sizes are asserted while streaming. */
  open(entry: ZipEntryInfo): Promise<Readable>;
  /**
   * Reads a small entry (see {@link SMALL_ENTRY_BYTES}) whole, checking its size. With `transient`,
   * inflated bytes may sit in a buffer the next read reuses: use them before reading again.
   */
  readSmall(entry: ZipEntryInfo, transient?: boolean): Promise<SmallRead>;
  /** What the local header of `entry` says (read at once, a few dozen bytes), or null when it cannot be read. */
  localHeader(entry: ZipEntryInfo): LocalHeader | null;
  close(): void;
}

/** The fields of a local file header that repeat its central-directory record. */
export interface LocalHeader {
  /** The name's bytes, a character a byte. */
  name: string;
  flags: number;
  method: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
}

/** Whether `bytes[start, start + name.length)` are `name`, a character a byte. */
function holdsName(bytes: Buffer, start: number, name: string): boolean {
  if (start + name.length > bytes.length) return false;
  for (let i = 0; i < name.length; i += 1) if (bytes[start + i] !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * The local header at `offset`, read through `read` (the bytes asked for, or fewer at the end; a view
 * that the next read may replace), for an entry whose directory record names it `expected` (its bytes,
 * a character a byte): its name is `expected` itself when its bytes are the same, so that an intact
 * archive costs no string an entry.
 */
function parseLocalHeader(
  read: (position: number, length: number) => Buffer,
  offset: number,
  expected: string,
): LocalHeader | null {
  const head = read(offset, LOCAL_HEADER + expected.length);
  // Plain index arithmetic on bytes known to be there (Buffer's readers check bounds and arguments).
  const u16 = (o: number): number => head[o]! | (head[o + 1]! << 8);
  const u32 = (o: number): number => (head[o]! | (head[o + 1]! << 8) | (head[o + 2]! << 16)) + head[o + 3]! * 0x1000000;
  if (head.length < LOCAL_HEADER || u32(0) !== 0x04034b50) return null;
  const flags = u16(6);
  const method = u16(8);
  const crc32 = u32(14);
  const compressedSize = u32(18);
  const uncompressedSize = u32(22);
  const length = u16(26);
  const name =
    length === expected.length && holdsName(head, LOCAL_HEADER, expected)
      ? expected
      : length <= head.length - LOCAL_HEADER
        ? head.toString('latin1', LOCAL_HEADER, LOCAL_HEADER + length)
        : read(offset + LOCAL_HEADER, length).toString('latin1');
  return { name, flags, method, crc32, compressedSize, uncompressedSize };
}

/**
 * The library's entry for a decoded record (what its local-header and stream readers use); the library
 * sees the archive alone, which starts `base` bytes into the file.
 */
function libraryEntry(info: ZipEntryInfo, base: number): Entry {
  const EntryClass = (yauzl as unknown as { Entry: new () => Entry }).Entry;
  return Object.assign(new EntryClass(), {
    generalPurposeBitFlag: info.flags,
    compressionMethod: info.compressionMethod,
    compressedSize: info.compressedSize,
    uncompressedSize: info.uncompressedSize,
    relativeOffsetOfLocalHeader: info.localHeaderOffset - base,
  });
}

/** {@link locateArchive} for bytes in memory. */
function spanOfBuffer(bytes: Buffer): ArchiveSpan {
  const tail = bytes.subarray(Math.max(0, bytes.length - END_SEARCH));
  const at = (position: number, length: number) =>
    position + length <= bytes.length ? bytes.subarray(position, position + length) : null;
  return locateArchive(tail, bytes.length, at) ?? { base: 0, end: bytes.length };
}

function structural(error: unknown): ReaError {
  const message = error instanceof Error ? error.message : String(error);
  if (/EOCD|end of central directory record signature not found/i.test(message))
    return malformed('zip', 'no end of central directory record');
  if (/unexpected EOF/i.test(message)) return malformed('zip', 'truncated (unexpected end of file)');
  const comment = /Invalid comment length\. Expected: (\d+)\. Found: (\d+)/.exec(message);
  if (comment !== null) {
    // Bytes after the end record (appended data), or an end record whose comment runs past the file.
    const [, actual, declared] = comment.map(Number) as [number, number, number];
    return malformed(
      'zip',
      actual > declared
        ? `${actual - declared} bytes follow its end of central directory record (or its comment holds that record's signature)`
        : 'its end of central directory record declares a comment longer than the rest of the file',
    );
  }
  return malformed('zip', message.replace(/\.$/, ''));
}

const BLOCK = 1 << 20;

/**
 * Exactly `length` bytes at `position`, read synchronously: a read of at most a block (or of one small
 * entry) from a file that is usually in the page cache costs less than the thread-pool round trip of
 * an asynchronous read, and loops that make many of them give the event loop its turns (a Pacer).
 */
function readExactly(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  for (let done = 0; done < length;) {
    const read = readSync(fd, buffer, done, length - done, position + done);
    if (read === 0) throw new Error('unexpected EOF');
    done += read;
  }
  return buffer;
}
const LOCAL_HEADER = 30;
/** Bytes read at once for local headers: the headers of consecutive small entries in one read. */
const HEADER_WINDOW = 64 * 1024;
/** Room read past a local header's name for its extra field, so most kept entries take one read. */
const EXTRA_SLACK = 256;

/** Where a local header's entry data starts, with the library's checks and messages. */
function localDataStart(header: Buffer, offset: number, compressedSize: number, fileSize: number): number {
  const signature = header.readUInt32LE(0);
  if (signature !== 0x04034b50) throw new Error(`invalid local file header signature: 0x${signature.toString(16)}`);
  const start = offset + LOCAL_HEADER + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (start + compressedSize > fileSize) {
    throw new Error(`file data overflows file bounds: ${start} + ${compressedSize} > ${fileSize}`);
  }
  return start;
}

/**
 * A random-access reader over a file descriptor with a one-block read cache: central-directory
 * records, local headers and small entries are read in 1 MiB blocks instead of one system call each.
 * Its own methods take file positions, up to `size` (where the archive ends); the library's (`read`,
 * `_readStreamForRange`) take positions in the archive, which starts `base` bytes into the file.
 */
class CachedFileReader extends (yauzl.RandomAccessReader as unknown as new () => NodeJS.EventEmitter) {
  private block: Buffer = Buffer.alloc(0);
  private blockStart = 0;

  constructor(
    private readonly fd: number,
    private readonly size: number,
    readonly base: number,
  ) {
    super();
  }

  /** A window of the file for local headers (see {@link readHeader}), apart from the entry reads' block. */
  private headers: Buffer = Buffer.alloc(0);
  private headersStart = 0;
  private headersLength = 0;

  /**
   * Up to `length` bytes at `position` (fewer past the archive's end) for a local header: a view of a
   * window read ahead (64 KiB), so that the headers of consecutive small entries, asked for in file
   * order, take one read between them. Valid until the next call.
   */
  readHeader(position: number, length: number): Buffer {
    const want = Math.max(0, Math.min(length, this.size - position));
    const end = this.headersStart + this.headersLength;
    if (position >= this.headersStart && position + want <= end) {
      return this.headers.subarray(position - this.headersStart, position - this.headersStart + want);
    }
    const span = Math.max(want, Math.min(HEADER_WINDOW, this.size - position));
    if (this.headers.length < span) this.headers = Buffer.allocUnsafe(Math.max(span, HEADER_WINDOW));
    let done = 0;
    while (done < span) {
      const read = readSync(this.fd, this.headers, done, span - done, position + done);
      if (read === 0) break;
      done += read;
    }
    this.headersStart = position;
    this.headersLength = done;
    return this.headers.subarray(0, Math.min(want, done));
  }

  /** Bytes [position, position + length) from the cache, loading a block on a miss. */
  fetch(position: number, length: number, callback: (error: Error | null, bytes?: Buffer) => void): void {
    const end = position + length;
    if (position >= this.blockStart && end <= this.blockStart + this.block.length) {
      const bytes = this.block.subarray(position - this.blockStart, end - this.blockStart);
      // Deferred so that a chain of cache hits never grows the stack.
      queueMicrotask(() => callback(null, bytes));
      return;
    }
    const want = Math.min(Math.max(length, BLOCK), this.size - position);
    if (want < length || position < 0) {
      callback(new Error('unexpected EOF'));
      return;
    }
    let buffer: Buffer;
    try {
      buffer = readExactly(this.fd, position, want);
    } catch (error) {
      queueMicrotask(() => callback(error as Error));
      return;
    }
    this.block = buffer;
    this.blockStart = position;
    queueMicrotask(() => callback(null, buffer.subarray(0, length)));
  }

  /** Exactly `length` bytes at `position` in a buffer of their own, bypassing the cache. */
  exact(position: number, length: number, callback: (error: Error | null, bytes?: Buffer) => void): void {
    if (position < 0 || position + length > this.size) return callback(new Error('unexpected EOF'));
    let buffer: Buffer;
    try {
      buffer = readExactly(this.fd, position, length);
    } catch (error) {
      queueMicrotask(() => callback(error as Error));
      return;
    }
    queueMicrotask(() => callback(null, buffer));
  }

  /** A kept entry's local header and data, read together in one exact read (two when its extra field is long). */
  entry(info: ZipEntryInfo, callback: (error: Error | null, raw?: Buffer) => void): void {
    const offset = info.localHeaderOffset;
    const want = Math.min(LOCAL_HEADER + info.nameLength + EXTRA_SLACK + info.compressedSize, this.size - offset);
    this.exact(offset, Math.max(want, LOCAL_HEADER), (error, bytes) => {
      if (error || !bytes) return callback(error);
      let start: number;
      try {
        start = localDataStart(bytes, offset, info.compressedSize, this.size);
      } catch (headerError) {
        return callback(headerError as Error);
      }
      const at = start - offset;
      if (at + info.compressedSize <= bytes.length) return callback(null, bytes.subarray(at, at + info.compressedSize));
      this.exact(start, info.compressedSize, callback);
    });
  }

  /** Exactly `length` bytes at `position` (a file position) in a buffer of their own, or null past the archive. */
  bytesAt(position: number, length: number): Buffer | null {
    if (position < 0 || position + length > this.size) return null;
    try {
      return readExactly(this.fd, position, length);
    } catch {
      return null;
    }
  }

  /** At least `length` bytes at `position`, and up to a block when the file holds them. */
  window(position: number, length: number, callback: (error: Error | null, bytes?: Buffer) => void): void {
    this.fetch(position, Math.max(length, Math.min(BLOCK, this.size - position)), callback);
  }

  read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null) => void,
  ): void {
    this.fetch(this.base + position, length, (error, bytes) => {
      if (error || !bytes) return callback(error ?? new Error('unexpected EOF'));
      bytes.copy(buffer, offset);
      callback(null);
    });
  }

  _readStreamForRange(start: number, end: number): Readable {
    let position = this.base + start;
    end += this.base;
    const fd = this.fd;
    return new Readable({
      highWaterMark: BLOCK,
      read() {
        if (position >= end) {
          this.push(null);
          return;
        }
        const want = Math.min(BLOCK, end - position);
        const buffer = Buffer.allocUnsafe(want);
        readFd(fd, buffer, 0, want, position, (error, bytesRead) => {
          if (error) return void this.destroy(error);
          if (bytesRead === 0) return void this.destroy(new Error('unexpected EOF'));
          position += bytesRead;
          this.push(buffer.subarray(0, bytesRead));
        });
      },
    });
  }

  close(callback: (error: Error | null) => void): void {
    close(this.fd, (error) => callback(error ?? null));
  }
}

/** Opens the file at `path` as the archive it holds (see {@link locateArchive}). */
function openCached(
  path: string,
  callback: (error: Error | null, reader?: CachedFileReader, span?: ArchiveSpan, size?: number) => void,
): void {
  openFd(path, 'r', (error, fd) => {
    if (error) return callback(error);
    fstat(fd, (statError, stats) => {
      if (statError) return close(fd, () => callback(statError));
      const span = spanOfFile(fd, stats.size);
      callback(null, new CachedFileReader(fd, span.end, span.base), span, stats.size);
    });
  });
}

/** Central-directory windows: views of a buffer source, or cached blocks of the file. */
function windowOf(source: string | Buffer, zip: ZipFile): Fetch {
  if (typeof source !== 'string') {
    return (position, length) =>
      position + length <= source.length
        ? Promise.resolve(source.subarray(position))
        : Promise.reject(new Error('unexpected EOF'));
  }
  const reader = (zip as unknown as { reader: CachedFileReader }).reader;
  return (position, length) =>
    new Promise((resolve, reject) =>
      reader.window(position, length, (error, bytes) => (error || !bytes ? reject(error) : resolve(bytes))),
    );
}

const OPTIONS = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true } as const;

/** Opens a ZIP from a path or a buffer; a structural fault is `unsupported_target` (malformed). */
export async function openZip(source: string | Buffer): Promise<ZipReader> {
  let span: ArchiveSpan = { base: 0, end: 0 };
  let fileSize = 0;
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    const done = (error: Error | null, file?: ZipFile): void =>
      error || !file ? reject(structural(error)) : resolve(file);
    if (typeof source !== 'string') {
      span = spanOfBuffer(source);
      fileSize = source.length;
      return yauzl.fromBuffer(source.subarray(span.base, span.end), OPTIONS, done);
    }
    openCached(source, (error, reader, found, size) => {
      if (error || !reader || found === undefined || size === undefined) return reject(error);
      span = found;
      fileSize = size;
      const raw = reader as unknown as yauzl.RandomAccessReader;
      yauzl.fromRandomAccessReader(raw, span.end - span.base, OPTIONS, (openError, file) => {
        if (openError) reader.close(() => undefined);
        done(openError, file);
      });
    });
  });
  const { base } = span;
  // Library errors after open arrive as events; keep one listener so none is unhandled.
  zip.on('error', () => undefined);
  // Before any entry is read, the cursor is the central directory's offset.
  const state = zip as unknown as { readEntryCursor: number };
  const centralDirectoryOffset = base + state.readEntryCursor;
  const scratch = new Scratch();
  const fetch = windowOf(source, zip);
  // Local headers are read exactly (a window of the file of their own), never through the shared block
  // of the entry reads; chosen once, not for every entry.
  const file = (zip as unknown as { reader: unknown }).reader;
  const readHeader =
    typeof source !== 'string'
      ? (position: number, length: number) => source.subarray(position, Math.min(source.length, position + length))
      : file instanceof CachedFileReader
        ? (position: number, length: number) => file.readHeader(position, length)
        : null;
  // The end record lies before its comment, which ends the archive (the library's reading of it).
  const at =
    typeof source !== 'string'
      ? (position: number, length: number) =>
          position >= 0 && position + length <= source.length ? source.subarray(position, position + length) : null
      : file instanceof CachedFileReader
        ? (position: number, length: number) => file.bytesAt(position, length)
        : () => null;
  const declaredSize = declaredDirectorySize(span.end - END_RECORD - zip.comment.length, base, at);
  let directorySize: number | null = null;
  return {
    entryCount: zip.entryCount,
    centralDirectoryOffset,
    archiveStart: base,
    trailingBytes: fileSize - span.end,
    declaredDirectorySize: declaredSize,
    get directorySize() {
      return directorySize;
    },
    async readEntries(limit, signal, progress) {
      const pacer = new Pacer(signal);
      const out: ZipEntryInfo[] = [];
      try {
        const end = await readCentralDirectory(
          fetch,
          centralDirectoryOffset,
          Math.min(limit, zip.entryCount),
          (info) => out.push(info),
          () => {
            progress?.(out);
            return pacer.turn('directory');
          },
          base,
        );
        if (out.length === zip.entryCount) directorySize = end - centralDirectoryOffset;
      } catch (error) {
        if (isReaError(error)) throw error;
        throw structural(error);
      }
      return out;
    },
    open(info) {
      return new Promise((resolve, reject) => {
        try {
          zip.openReadStream(libraryEntry(info, base), (error, stream) =>
            error || !stream ? reject(structural(error)) : resolve(stream),
          );
        } catch (error) {
          reject(structural(error));
        }
      });
    },
    readSmall(info, transient = false) {
      return new Promise((resolve, reject) => {
        if (!transient && file instanceof CachedFileReader) {
          // Bytes the caller keeps (an extraction) are read exactly, not through a shared block.
          file.entry(info, (error, raw) =>
            error || !raw ? reject(structural(error)) : resolve(decodeSmall(info, raw, null)),
          );
          return;
        }
        const entry = libraryEntry(info, base);
        const withHeader = zip as unknown as {
          readLocalFileHeader(
            e: Entry,
            o: { minimal: true },
            cb: (error: Error | null, header?: { fileDataStart: number }) => void,
          ): void;
          reader: { read(b: Buffer, o: number, l: number, p: number, cb: (error: Error | null) => void): void };
        };
        withHeader.readLocalFileHeader(entry, { minimal: true }, (error, header) => {
          if (error || !header) return reject(structural(error));
          const reader = withHeader.reader as unknown as Partial<Pick<CachedFileReader, 'fetch'>>;
          if (typeof reader.fetch === 'function') {
            // A view of the cached block: blocks are replaced, never overwritten, so the view stays valid.
            // The library's positions are the archive's; the reader's own are the file's.
            reader.fetch(base + header.fileDataStart, info.compressedSize, (readError, bytes) => {
              if (readError || !bytes) return reject(structural(readError ?? new Error('unexpected EOF')));
              resolve(decodeSmall(info, bytes, transient ? scratch : null));
            });
            return;
          }
          const raw = Buffer.allocUnsafe(info.compressedSize);
          withHeader.reader.read(raw, 0, raw.length, header.fileDataStart, (readError) => {
            if (readError) return reject(structural(readError));
            resolve(decodeSmall(info, raw, transient ? scratch : null));
          });
        });
      });
    },
    localHeader(info) {
      if (readHeader === null) return null;
      try {
        return parseLocalHeader(readHeader, info.localHeaderOffset, info.rawName ?? info.name);
      } catch {
        return null;
      }
    },
    close: () => zip.close(),
  };
}

// zlib's smallest permitted output chunk.
const MIN_CHUNK = 64;

// Used synchronously only, so one engine serves every archive.
const inflater = new ReusableInflater();

/** One archive's reused output buffer (a reader's reads are consumed one at a time). */
class Scratch {
  private buffer = Buffer.alloc(0);

  /** The first `size` bytes of the buffer, grown when needed. */
  of(size: number): Buffer {
    if (this.buffer.length < size) {
      this.buffer = Buffer.allocUnsafe(Math.max(size, Math.min(2 * this.buffer.length, SMALL_ENTRY_BYTES + 1)));
    }
    return this.buffer.subarray(0, size);
  }
}

function decodeSmall(info: ZipEntryInfo, raw: Buffer, scratch: Scratch | null): SmallRead {
  if (info.compressionMethod === 0) return judged(info, raw);
  // One byte past the declared size is enough to know the declaration lies.
  const room = info.uncompressedSize + 1;
  // The common case: the reused engine inflates straight into a buffer of that room; anything
  // unusual (a data fault, an overlong entry) is decided and described by the ordinary path below.
  const output = scratch !== null ? scratch.of(room) : Buffer.allocUnsafe(room);
  const produced = inflater.inflateInto(raw, output);
  if (produced === info.uncompressedSize) return { bytes: output.subarray(0, produced) };
  try {
    // An output chunk that holds the whole declared entry (plus that byte) inflates in one pass.
    return judged(info, inflateRawSync(raw, { maxOutputLength: room, chunkSize: Math.max(MIN_CHUNK, room) }));
  } catch (error) {
    const code = (error as { code?: string }).code;
    // Inflating stopped one byte past the declared size: the entry holds at least that many.
    if (code === 'ERR_BUFFER_TOO_LARGE') return { fault: 'size', observed: info.uncompressedSize + 1, exact: false };
    return { fault: 'data', message: (error as Error).message };
  }
}

function judged(info: ZipEntryInfo, bytes: Buffer): SmallRead {
  // Every byte was read (the whole stored data, or the whole inflated stream): the count is exact.
  if (bytes.length !== info.uncompressedSize) return { fault: 'size', observed: bytes.length, exact: true };
  return { bytes };
}

/**
 * Classifies a stream error from an entry: size assertions are integrity facts, the rest structural. A
 * stream that ran past the declared size was stopped there (at least that many bytes); one that ended
 * short of it was read to its end (exactly that many).
 */
export function classifyStreamError(
  error: unknown,
): ({ kind: 'size' } & ObservedSize) | { kind: 'other'; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const more = /too many bytes in the stream\. expected \d+\. got at least (\d+)/.exec(message);
  if (more) return { kind: 'size', observed: Number(more[1]), exact: false };
  const less = /not enough bytes in the stream\. expected \d+\. got only (\d+)/.exec(message);
  if (less) return { kind: 'size', observed: Number(less[1]), exact: true };
  return { kind: 'other', message };
}

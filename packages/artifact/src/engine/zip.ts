// The one module that talks to yauzl. Everything else sees ZipReader and ZipEntryInfo.
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { close, fstat, open as openFd, read as readFd } from 'node:fs';
import { Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import type { ReaError } from '@rea/evidence';
import { malformed } from '../errors.js';
import { Pacer } from '../layout/cooperative.js';
import { ReusableInflater } from './inflate.js';

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
  localHeaderOffset: number;
  nameLength: number;
  /** The library entry, opaque outside this module. */
  handle: unknown;
}

/** The whole decoded bytes of a small entry, or what contradicted its declared size or encoding. */
export type SmallRead =
  { bytes: Buffer } | { fault: 'size'; observedAtLeast: number } | { fault: 'data'; message: string };

/** Entries at most this large (both sizes) are read whole from the block cache and inflated in one call. */
export const SMALL_ENTRY_BYTES = 1 << 20;

/** An open ZIP: its entry count, its central directory, and entry streams. */
export interface ZipReader {
  readonly entryCount: number;
  readonly centralDirectoryOffset: number;
  /**
   * Reads up to `limit` central-directory entries in order, giving the event loop a turn every few
   * milliseconds (a cached directory otherwise decodes in one go) and throwing `cancelled` when
   * `signal` is aborted.
   */
  readEntries(limit: number, signal?: AbortSignal): Promise<ZipEntryInfo[]>;
  /** The decoded (inflated) bytes of an entry; sizes are asserted while streaming. */
  open(entry: ZipEntryInfo): Promise<Readable>;
  /**
   * Reads a small entry (see {@link SMALL_ENTRY_BYTES}) whole, checking its size. With `transient`,
   * inflated bytes may sit in a buffer the next read reuses: use them before reading again.
   */
  readSmall(entry: ZipEntryInfo, transient?: boolean): Promise<SmallRead>;
  close(): void;
}

const S_IFMT = 0o170000;

// Present in yauzl 3 but missing from its published types.
type NameDecoder = (flags: number, raw: Buffer, extra: Entry['extraFields'], strict: boolean) => string;

function kindOf(entry: Entry, name: string, mode: number | null): ZipEntryInfo['kind'] {
  if (mode !== null && (mode & S_IFMT) !== 0) {
    const type = mode & S_IFMT;
    if (type === 0o120000) return 'symlink';
    if (type === 0o040000) return 'directory';
    if (type === 0o100000) return name.endsWith('/') ? 'directory' : 'file';
    return 'other';
  }
  if (name.endsWith('/') || (entry.externalFileAttributes & 0x10) !== 0) return 'directory';
  return 'file';
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes an entry name: the UTF-8 flag or Info-ZIP Unicode path field when present; otherwise, like
 * Info-ZIP and macOS, UTF-8 when the bytes are valid UTF-8, and CP437 as the format specifies if not.
 */
function decodeName(entry: Entry, raw: Buffer): string {
  const ascii = !raw.some((byte) => byte >= 0x80);
  const unicodeField = entry.extraFields.some((f) => f.id === 0x7075);
  // Fast paths: plain ASCII reads the same in every encoding; the UTF-8 flag means UTF-8.
  if (ascii && !unicodeField) return raw.toString('latin1');
  if ((entry.generalPurposeBitFlag & 0x800) !== 0 && !unicodeField) return raw.toString('utf8');
  const decoded = (yauzl as unknown as { getFileNameLowLevel: NameDecoder }).getFileNameLowLevel(
    entry.generalPurposeBitFlag,
    raw,
    entry.extraFields,
    true,
  );
  if ((entry.generalPurposeBitFlag & 0x800) !== 0 || entry.extraFields.some((f) => f.id === 0x7075)) return decoded;
  if (!raw.some((byte) => byte >= 0x80)) return decoded;
  try {
    return strictUtf8.decode(raw);
  } catch {
    return decoded;
  }
}

function toInfo(entry: Entry): ZipEntryInfo {
  const raw = entry.fileName as unknown as Buffer;
  const name = decodeName(entry, raw);
  const madeOnUnix = entry.versionMadeBy >> 8 === 3;
  const mode = madeOnUnix ? entry.externalFileAttributes >>> 16 : null;
  return {
    name,
    crc32: entry.crc32 >>> 0,
    compressedSize: entry.compressedSize,
    uncompressedSize: entry.uncompressedSize,
    compressionMethod: entry.compressionMethod,
    encrypted: entry.isEncrypted(),
    mode,
    kind: kindOf(entry, name, mode),
    localHeaderOffset: entry.relativeOffsetOfLocalHeader,
    nameLength: raw.length,
    handle: entry,
  };
}

function structural(error: unknown): ReaError {
  const message = error instanceof Error ? error.message : String(error);
  if (/EOCD|end of central directory/i.test(message)) return malformed('zip', 'no end of central directory record');
  if (/unexpected EOF/i.test(message)) return malformed('zip', 'truncated (unexpected end of file)');
  return malformed('zip', message.replace(/\.$/, ''));
}

const BLOCK = 1 << 20;

/**
 * A random-access reader over a file descriptor with a one-block read cache: central-directory
 * records, local headers and small entries are read in 1 MiB blocks instead of one system call each.
 */
class CachedFileReader extends (yauzl.RandomAccessReader as unknown as new () => NodeJS.EventEmitter) {
  private block: Buffer = Buffer.alloc(0);
  private blockStart = 0;

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {
    super();
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
    const buffer = Buffer.allocUnsafe(want);
    const fill = (done: number): void => {
      if (done === want) {
        this.block = buffer;
        this.blockStart = position;
        callback(null, buffer.subarray(0, length));
        return;
      }
      readFd(this.fd, buffer, done, want - done, position + done, (error, bytesRead) => {
        if (error) return callback(error);
        if (bytesRead === 0) return callback(new Error('unexpected EOF'));
        fill(done + bytesRead);
      });
    };
    fill(0);
  }

  read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null) => void,
  ): void {
    this.fetch(position, length, (error, bytes) => {
      if (error || !bytes) return callback(error ?? new Error('unexpected EOF'));
      bytes.copy(buffer, offset);
      callback(null);
    });
  }

  _readStreamForRange(start: number, end: number): Readable {
    let position = start;
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

function openCached(
  path: string,
  callback: (error: Error | null, reader?: CachedFileReader, size?: number) => void,
): void {
  openFd(path, 'r', (error, fd) => {
    if (error) return callback(error);
    fstat(fd, (statError, stats) => {
      if (statError) return close(fd, () => callback(statError));
      callback(null, new CachedFileReader(fd, stats.size), stats.size);
    });
  });
}

const OPTIONS = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true } as const;

/** Opens a ZIP from a path or a buffer; a structural fault is `unsupported_target` (malformed). */
export async function openZip(source: string | Buffer): Promise<ZipReader> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    const done = (error: Error | null, file?: ZipFile): void =>
      error || !file ? reject(structural(error)) : resolve(file);
    if (typeof source !== 'string') return yauzl.fromBuffer(source, OPTIONS, done);
    openCached(source, (error, reader, size) => {
      if (error || !reader || size === undefined) return reject(error);
      const raw = reader as unknown as yauzl.RandomAccessReader;
      yauzl.fromRandomAccessReader(raw, size, OPTIONS, (openError, file) => {
        if (openError) reader.close(() => undefined);
        done(openError, file);
      });
    });
  });
  // Library errors after open arrive as events; keep one listener so none is unhandled.
  zip.on('error', () => undefined);
  // Before any entry is read, the cursor is the central directory's offset.
  const state = zip as unknown as { readEntryCursor: number };
  const centralDirectoryOffset = state.readEntryCursor;
  const scratch = new Scratch();
  return {
    entryCount: zip.entryCount,
    centralDirectoryOffset,
    readEntries(limit, signal) {
      const pacer = new Pacer(signal);
      return new Promise((resolve, reject) => {
        const out: ZipEntryInfo[] = [];
        if (limit <= 0 || zip.entryCount === 0) return resolve(out);
        const cleanup = (): void => {
          zip.removeListener('entry', onEntry);
          zip.removeListener('end', onEnd);
          zip.removeListener('error', onError);
        };
        const onEntry = (entry: Entry): void => {
          try {
            out.push(toInfo(entry));
          } catch (error) {
            cleanup();
            return reject(structural(error));
          }
          if (out.length >= limit) {
            cleanup();
            resolve(out);
            return;
          }
          pacer.turn('directory').then(
            () => zip.readEntry(),
            (error: unknown) => {
              cleanup();
              reject(error);
            },
          );
        };
        const onEnd = (): void => {
          cleanup();
          resolve(out);
        };
        const onError = (error: Error): void => {
          cleanup();
          reject(structural(error));
        };
        zip.on('entry', onEntry);
        zip.on('end', onEnd);
        zip.on('error', onError);
        zip.readEntry();
      });
    },
    open(info) {
      return new Promise((resolve, reject) => {
        try {
          zip.openReadStream(info.handle as Entry, (error, stream) =>
            error || !stream ? reject(structural(error)) : resolve(stream),
          );
        } catch (error) {
          reject(structural(error));
        }
      });
    },
    readSmall(info, transient = false) {
      return new Promise((resolve, reject) => {
        const entry = info.handle as Entry;
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
            reader.fetch(header.fileDataStart, info.compressedSize, (readError, bytes) => {
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
    if (code === 'ERR_BUFFER_TOO_LARGE') return { fault: 'size', observedAtLeast: info.uncompressedSize + 1 };
    return { fault: 'data', message: (error as Error).message };
  }
}

function judged(info: ZipEntryInfo, bytes: Buffer): SmallRead {
  if (bytes.length !== info.uncompressedSize) return { fault: 'size', observedAtLeast: bytes.length };
  return { bytes };
}

/** Classifies a stream error from an entry: size assertions are integrity facts, the rest structural. */
export function classifyStreamError(
  error: unknown,
): { kind: 'size'; observedAtLeast: number } | { kind: 'other'; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const more = /too many bytes in the stream\. expected \d+\. got at least (\d+)/.exec(message);
  if (more) return { kind: 'size', observedAtLeast: Number(more[1]) };
  const less = /not enough bytes in the stream\. expected \d+\. got only (\d+)/.exec(message);
  if (less) return { kind: 'size', observedAtLeast: Number(less[1]) };
  return { kind: 'other', message };
}

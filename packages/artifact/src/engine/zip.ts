// The one module that talks to yauzl. Everything else sees ZipReader and ZipEntryInfo.
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import type { Readable } from 'node:stream';
import type { ReaError } from '@rea/evidence';
import { malformed } from '../errors.js';

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

/** An open ZIP: its entry count, its central directory, and entry streams. */
export interface ZipReader {
  readonly entryCount: number;
  readonly centralDirectoryOffset: number;
  /** Reads up to `limit` central-directory entries in order. */
  readEntries(limit: number): Promise<ZipEntryInfo[]>;
  /** The decoded (inflated) bytes of an entry; sizes are asserted while streaming. */
  open(entry: ZipEntryInfo): Promise<Readable>;
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

function toInfo(entry: Entry): ZipEntryInfo {
  const raw = entry.fileName as unknown as Buffer;
  const name = (yauzl as unknown as { getFileNameLowLevel: NameDecoder }).getFileNameLowLevel(
    entry.generalPurposeBitFlag,
    raw,
    entry.extraFields,
    true,
  );
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

const OPTIONS = { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true } as const;

/** Opens a ZIP from a path or a buffer; a structural fault is `unsupported_target` (malformed). */
export async function openZip(source: string | Buffer): Promise<ZipReader> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    const done = (error: Error | null, file?: ZipFile): void =>
      error || !file ? reject(structural(error)) : resolve(file);
    if (typeof source === 'string') yauzl.open(source, OPTIONS, done);
    else yauzl.fromBuffer(source, OPTIONS, done);
  });
  // Library errors after open arrive as events; keep one listener so none is unhandled.
  zip.on('error', () => undefined);
  // Before any entry is read, the cursor is the central directory's offset.
  const state = zip as unknown as { readEntryCursor: number };
  const centralDirectoryOffset = state.readEntryCursor;
  return {
    entryCount: zip.entryCount,
    centralDirectoryOffset,
    readEntries(limit) {
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
          } else zip.readEntry();
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
    close: () => zip.close(),
  };
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

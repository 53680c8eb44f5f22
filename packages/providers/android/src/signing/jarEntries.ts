// The digests of many ZIP entries for v1 checks, read in local-header order through one reused window
// of the file and inflated one by one (a large stored entry hashed as it passes): no stream, no copy
// kept past its check. Only plain
// entries take this way (a file with a safe, unique path, stored or deflated, not encrypted); the
// listing they come from has had its layout checked (no overlaps, no data past the directory).
import { createHash, hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { throwIfAborted } from '@rea/evidence';
import { createRawInflater } from '@rea/artifact';
import type { RawInflater, ZipEntryRecord } from '@rea/artifact';
import type { ReadAt } from '../format/signingBlock.js';
import { CheckFailed } from './result.js';

const WINDOW = 1024 * 1024;
const LOCAL_HEADER = 0x04034b50;

/** True when `entry` can be read by {@link readPlainEntries}. */
export function isPlain(entry: ZipEntryRecord): boolean {
  return (
    entry.kind === 'file' &&
    entry.problem === null &&
    !entry.encrypted &&
    (entry.compressionMethod === 0 || entry.compressionMethod === 8)
  );
}

const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');

/** A window over the file: `at(position, length)` is a view valid until the next call. */
function windowOver(file: ReadAt, limit: number) {
  const window = Buffer.allocUnsafe(WINDOW);
  let start = 0;
  let end = 0;
  return async (position: number, length: number, path: string): Promise<Buffer> => {
    if (position + length > limit) throw new CheckFailed(`the data of ${path} reaches past the entries of the archive`);
    if (position >= start && position + length <= end)
      return window.subarray(position - start, position + length - start);
    const target = length > WINDOW ? Buffer.allocUnsafe(length) : window;
    const want = length > WINDOW ? length : Math.min(WINDOW, limit - position);
    const { bytesRead } = await file.read(target, 0, want, position);
    if (bytesRead < length) throw new CheckFailed(`the data of ${path} runs past the end of the file`);
    if (target !== window) return target;
    start = position;
    end = position + bytesRead;
    return window.subarray(0, length);
  };
}

/** The digest (base64) of `bytes` for each of `hashes`. */
function digests(hashes: readonly string[], chunks: (update: (chunk: Buffer) => void) => Promise<void>) {
  const hashers = hashes.map((h) => [h, createHash(h)] as const);
  return chunks((chunk) => {
    for (const [, hasher] of hashers) hasher.update(chunk);
  }).then(() => new Map(hashers.map(([h, hasher]) => [h, hasher.digest('base64')])));
}

/**
 * Calls `each` with a digest function of every entry of `entries` (all {@link isPlain}) of the ZIP in
 * `file` whose entry data ends before `limit`, in local-header order: `digestOf(hash)` is the base64
 * digest of the entry's bytes for each of `hashesOf(path)`. A large stored entry is hashed as it is
 * read through the window, never held whole. Bytes that contradict their declared CRC-32 or size, or
 * cannot be inflated, fail with the integrity mismatch; a bad local header fails as malformed.
 */
export async function readPlainEntries(
  file: ReadAt,
  entries: readonly ZipEntryRecord[],
  limit: number,
  signal: AbortSignal | undefined,
  hashesOf: (path: string) => string[],
  each: (path: string, digestOf: (hash: string) => string) => void,
): Promise<void> {
  const at = windowOver(file, limit);
  const ordered = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  // One zlib engine for every deflated entry, rather than one built and freed per entry.
  const inflater = await createRawInflater();
  try {
    await readInOrder(at, ordered, signal, hashesOf, each, inflater);
  } finally {
    inflater.close();
  }
}

async function readInOrder(
  at: ReturnType<typeof windowOver>,
  ordered: readonly ZipEntryRecord[],
  signal: AbortSignal | undefined,
  hashesOf: (path: string) => string[],
  each: (path: string, digestOf: (hash: string) => string) => void,
  inflater: RawInflater,
): Promise<void> {
  for (const [n, entry] of ordered.entries()) {
    if (n % 256 === 0) throwIfAborted(signal, 'verifying');
    const header = await at(entry.localHeaderOffset, 30, entry.path);
    if (header.readUInt32LE(0) !== LOCAL_HEADER)
      throw new CheckFailed(
        `The zip data is malformed: entry ${JSON.stringify(entry.path)} has no valid local header.`,
      );
    const data = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (entry.compressionMethod === 0 && entry.compressedSize > WINDOW) {
      let crc = 0;
      const found = await digests(hashesOf(entry.path), async (update) => {
        for (let p = data; p < data + entry.compressedSize;) {
          throwIfAborted(signal, 'verifying');
          const chunk = await at(p, Math.min(WINDOW, data + entry.compressedSize - p), entry.path);
          crc = crc32(chunk, crc);
          update(chunk);
          p += chunk.length;
        }
      });
      checkCrc(entry, crc >>> 0);
      each(entry.path, (h) => found.get(h) ?? '');
      continue;
    }
    const raw = await at(data, entry.compressedSize, entry.path);
    let bytes: Buffer;
    if (entry.compressionMethod === 0) bytes = raw;
    else {
      try {
        bytes = inflater.inflate(raw, entry.size);
      } catch (error) {
        throw new CheckFailed(
          `Integrity mismatch at ${entry.path}: declared crc32 ${hex(entry.crc32)}, observed undecodable data (${(error as Error).message}).`,
        );
      }
    }
    if (bytes.length !== entry.size)
      throw new CheckFailed(
        `Integrity mismatch at ${entry.path}: declared size ${entry.size} bytes, observed ${bytes.length} bytes.`,
      );
    checkCrc(entry, crc32(bytes) >>> 0);
    // One-shot digests: no hash object per entry.
    each(entry.path, (h) => hash(h, bytes, 'base64'));
  }
}

function checkCrc(entry: ZipEntryRecord, observed: number): void {
  if (observed !== entry.crc32)
    throw new CheckFailed(
      `Integrity mismatch at ${entry.path}: declared crc32 ${hex(entry.crc32)}, observed ${hex(observed)}.`,
    );
}

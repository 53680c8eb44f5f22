// A small regular file read and hashed in one synchronous pass.
//
// The tools that look at one file (`inspect_binary_layout`, `inspect_artifact`, `open_binary`) each
// read it once to hash it. Streamed, a file of a few hundred kilobytes costs a stat, an open, a read per
// chunk and a close, each a trip through libuv's thread pool, and each trip waits for a core: on a
// machine of two cores busy compiling and collecting garbage, a trip takes milliseconds, several times
// the read itself. Up to SMALL_FILE_BYTES, the same bytes are read with synchronous calls of a few
// microseconds each and hashed through one buffer the process reuses; the event loop is held for at
// most the time it takes to hash that much (a few milliseconds). Larger files take the streaming,
// cancellable path of each caller.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The largest file hashed synchronously (4 MiB). */
export const SMALL_FILE_BYTES = 4 << 20;

/** The chunk the small files are read through, one per process, made on first use. */
let chunk: Buffer | undefined;
const CHUNK_BYTES = 256 << 10;

/**
 * Reads from the descriptor's current position; null when the read would wait (`EAGAIN`: a file, on some
 * file systems, that is opened without waiting but has nothing to read yet), so that the caller's
 * streaming path reads it instead. Other errors are thrown.
 */
function readNow(descriptor: number, into: Buffer, offset: number, length: number): number | null {
  try {
    return readSync(descriptor, into, offset, length, null);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EAGAIN') return null;
    throw error;
  }
}

/** What {@link hashSmallFileSync} read. */
export interface SmallFileDigest {
  /** Lowercase hex SHA-256 of the bytes read. */
  sha256: string;
  /** The bytes read, to the end of the file. */
  bytesRead: number;
  /** The size the file's status gave when it was opened (a file of /proc states 0, or a page). */
  statSize: number;
  /** The first 8 bytes read (fewer for a shorter file). */
  head: Uint8Array;
}

/**
 * The SHA-256 of the regular file at `path`, read to its end with synchronous calls, or null when the
 * path is not a regular file or is larger than `limit` bytes, as its status states it or as it turns out
 * while being read (a file growing meanwhile), or when a read would wait: the caller then takes its own
 * path, which reports what the file is, or streams it. The file is opened without waiting (a FIFO put in its place is not waited
 * on) and closed before this returns. Errors of opening or reading are thrown as the system gives them
 * (`ENOENT`, `EACCES`, `EIO`…), for the caller to type.
 */
export function hashSmallFileSync(path: string, limit: number = SMALL_FILE_BYTES): SmallFileDigest | null {
  const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const status = fstatSync(descriptor);
    if (!status.isFile() || status.size > limit) return null;
    const buffer = (chunk ??= Buffer.allocUnsafeSlow(CHUNK_BYTES));
    const hash = createHash('sha256');
    const head = new Uint8Array(8);
    let bytesRead = 0;
    for (;;) {
      // From the current position (the descriptor is fresh): a file that cannot seek reads as it streams.
      const n = readNow(descriptor, buffer, 0, buffer.length);
      if (n === null) return null;
      if (n === 0) break;
      if (bytesRead < 8) head.set(buffer.subarray(0, Math.min(n, 8 - bytesRead)), bytesRead);
      bytesRead += n;
      if (bytesRead > limit) return null;
      hash.update(n === buffer.length ? buffer : buffer.subarray(0, n));
    }
    return {
      sha256: hash.digest('hex'),
      bytesRead,
      statSize: status.size,
      head: head.subarray(0, Math.min(8, bytesRead)),
    };
  } finally {
    closeSync(descriptor);
  }
}

/**
 * The whole of the regular file at `path`, read with synchronous calls, or null when the path is not a
 * regular file or is larger than `limit` bytes (as its status states it, or as it turns out while being
 * read), or when a read would wait. Opened without waiting, closed before this returns; errors are thrown as the system gives them.
 */
export function readSmallFileSync(path: string, limit: number = SMALL_FILE_BYTES): Buffer | null {
  const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const status = fstatSync(descriptor);
    if (!status.isFile() || status.size > limit) return null;
    // Room for what the status states and one byte more, so that the end is seen without growing; a file
    // that states less (one of /proc states 0) or grows meanwhile is read on, never past `limit` + 1.
    let bytes = Buffer.allocUnsafe(Math.min(limit + 1, Math.max(status.size + 1, 1 << 16)));
    let length = 0;
    for (;;) {
      if (length === bytes.length) {
        if (length > limit) return null;
        const larger = Buffer.allocUnsafe(Math.min(limit + 1, length * 2));
        bytes.copy(larger, 0, 0, length);
        bytes = larger;
      }
      const n = readNow(descriptor, bytes, length, bytes.length - length);
      if (n === null) return null;
      if (n === 0) break;
      length += n;
    }
    return length > limit ? null : bytes.subarray(0, length);
  } finally {
    closeSync(descriptor);
  }
}

// Reads, inflates and hashes batches of ZIP entries from a file descriptor the owning thread opened
// (and closes), for a digest worker or for the walk's own thread. Anything unusual about an entry (a
// local header that does not parse, data that does not inflate, a size that contradicts its
// declaration) is answered "not handled", and the owner reads that entry itself, so every fault is
// described exactly as the owner's own reader describes it.
import { createHash, hash } from 'node:crypto';
import { readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import {
  RECORD_BYTES,
  RECORD_CRC32,
  RECORD_HANDLED,
  RECORD_HEAD,
  RECORD_HEAD_LENGTH,
  RECORD_SHA256,
} from './digestMessages.js';
import type { DigestTask } from './digestMessages.js';
import { ReusableInflater } from './inflate.js';

const LOCAL_HEADER = 30;
/** Room assumed for a local header's name and extra field when a batch is read in one go. */
const HEADER_SLACK = 1024;
/** Entries larger than this (either size) are streamed in chunks of this size. */
const CHUNK = 1 << 20;

/** ZIP local header, empty ZIP, or an ASAR header's pickle prefix (the owner re-checks precisely). */
function isContainer(head: Buffer): boolean {
  if (head.length >= 4 && (head.readUInt32LE(0) === 0x04034b50 || head.readUInt32LE(0) === 0x06054b50)) return true;
  return head.length >= 16 && head.readUInt32LE(0) === 4;
}

/** True when an entry is streamed in chunks rather than inflated whole (either size past a chunk). */
export const isLarge = (task: DigestTask): boolean => task.compressedSize > CHUNK || task.uncompressedSize > CHUNK;

/** One batch's results: its records in task order, and the bytes kept by walk position. */
export interface DigestedBatch {
  records: Buffer;
  collected: Array<[number, Uint8Array]>;
}

/**
 * A digester of batches over `fd` (of `fileSize` bytes): each call handles one batch synchronously,
 * reusing its buffers and inflater from one batch to the next.
 */
export function batchDigester(fd: number, fileSize: number): (tasks: readonly DigestTask[]) => DigestedBatch {
  const inflater = new ReusableInflater();
  /** Reused buffers: a batch is handled synchronously, and what is kept is copied out. */
  let spanBuffer: Buffer = Buffer.alloc(0);
  let output: Buffer = Buffer.alloc(0);

  function grown(buffer: Buffer, size: number): Buffer {
    return buffer.length >= size ? buffer : Buffer.allocUnsafe(Math.max(size, 2 * buffer.length));
  }

  function readAt(position: number, length: number, into?: Buffer): Buffer {
    const buffer = into ?? Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const read = readSync(fd, buffer, done, length - done, position + done);
      if (read === 0) break;
      done += read;
    }
    return buffer.subarray(0, done);
  }

  /** The batch's bytes in one read when its entries lie together, as most archives write them. */
  function span(tasks: readonly DigestTask[]): { start: number; bytes: Buffer } | null {
    let start = Infinity;
    let end = 0;
    for (const task of tasks) {
      start = Math.min(start, task.offset);
      end = Math.max(end, task.offset + LOCAL_HEADER + task.nameLength + HEADER_SLACK + task.compressedSize);
    }
    end = Math.min(end, fileSize);
    if (end - start > 32 << 20 || end <= start) return null;
    spanBuffer = grown(spanBuffer, end - start);
    return { start, bytes: readAt(start, end - start, spanBuffer) };
  }

  function slice(block: { start: number; bytes: Buffer } | null, position: number, length: number): Buffer {
    if (block !== null && position >= block.start && position + length <= block.start + block.bytes.length) {
      return block.bytes.subarray(position - block.start, position - block.start + length);
    }
    return readAt(position, length);
  }

  /** What one entry observed, as {@link record} writes it. */
  interface Observed {
    sha256: Buffer;
    crc32: number;
    head: Buffer;
    collected: Uint8Array | null;
  }

  function digest(task: DigestTask, block: { start: number; bytes: Buffer } | null): Observed | null {
    const header = slice(block, task.offset, LOCAL_HEADER);
    if (header.length < LOCAL_HEADER || header.readUInt32LE(0) !== 0x04034b50) return null;
    const dataStart = task.offset + LOCAL_HEADER + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (dataStart + task.compressedSize > fileSize) return null;
    const raw = slice(block, dataStart, task.compressedSize);
    if (raw.length !== task.compressedSize) return null;
    let bytes = raw;
    if (task.method === 8) {
      output = grown(output, task.uncompressedSize + 1);
      const produced = inflater.inflateInto(raw, output.subarray(0, task.uncompressedSize + 1));
      if (produced !== task.uncompressedSize) return null;
      bytes = output.subarray(0, produced);
    }
    if (bytes.length !== task.uncompressedSize) return null;
    const head = bytes.subarray(0, 16);
    const keep = bytes.length <= task.collectUpTo && (task.collectAny || isContainer(head));
    return {
      // One call, no hash object: most entries are small.
      sha256: hash('sha256', bytes, 'buffer'),
      crc32: crc32(bytes) >>> 0,
      head,
      // A copy with a buffer of its own (never a view of a shared pool), sent as it is.
      collected: keep ? new Uint8Array(bytes) : null,
    };
  }

  /** Writes one entry's record at `at` of `records`. */
  function record(records: Buffer, at: number, observed: Observed): void {
    records[at + RECORD_HANDLED] = 1;
    records[at + RECORD_HEAD_LENGTH] = observed.head.length;
    records.writeUInt32LE(observed.crc32, at + RECORD_CRC32);
    observed.sha256.copy(records, at + RECORD_SHA256);
    observed.head.copy(records, at + RECORD_HEAD);
  }

  /** Reused buffers of large entries: their compressed bytes a chunk at a time, and inflated bytes. */
  let largeInput: Buffer = Buffer.alloc(0);
  let largeOutput: Buffer = Buffer.alloc(0);

  /**
   * A large entry, read a chunk at a time through one reused input buffer, inflated through one reused
   * output buffer, hashed as it goes; null when anything is not as declared.
   */
  function digestLarge(task: DigestTask): Observed | null {
    const header = readAt(task.offset, LOCAL_HEADER);
    if (header.length < LOCAL_HEADER || header.readUInt32LE(0) !== 0x04034b50) return null;
    const dataStart = task.offset + LOCAL_HEADER + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (dataStart + task.compressedSize > fileSize) return null;
    const sha = createHash('sha256');
    let crc = 0;
    let size = 0;
    const head = Buffer.alloc(16);
    let headLength = 0;
    let kept: Buffer[] | null = task.collectUpTo >= task.uncompressedSize ? [] : null;
    const take = (chunk: Buffer): boolean => {
      size += chunk.length;
      if (size > task.uncompressedSize) return false;
      if (headLength < 16) headLength += chunk.copy(head, headLength, 0, Math.min(chunk.length, 16 - headLength));
      if (kept !== null && kept.length === 0 && !task.collectAny && !isContainer(head.subarray(0, headLength)))
        kept = null;
      // The buffers are reused: what is kept is copied.
      kept?.push(Buffer.from(chunk));
      sha.update(chunk);
      crc = crc32(chunk, crc);
      return true;
    };
    if (task.method === 8 && !inflater.begin()) return null;
    largeInput = grown(largeInput, CHUNK);
    largeOutput = grown(largeOutput, CHUNK);
    for (let done = 0; done < task.compressedSize || (task.method === 8 && done === 0);) {
      const length = Math.min(CHUNK, task.compressedSize - done);
      const piece = readAt(dataStart + done, length, largeInput);
      if (piece.length !== length) return null;
      done += length;
      if (task.method !== 8) {
        if (!take(piece)) return null;
      } else if (inflater.push(piece, done === task.compressedSize, largeOutput.subarray(0, CHUNK), take) === null) {
        return null;
      }
      if (length === 0) break;
    }
    if (size !== task.uncompressedSize) return null;
    return {
      sha256: sha.digest(),
      crc32: crc >>> 0,
      head: head.subarray(0, headLength),
      collected: kept === null ? null : new Uint8Array(Buffer.concat(kept)),
    };
  }

  return (tasks) => {
    const small = tasks.filter((task) => !isLarge(task));
    const block = small.length > 0 ? span(small) : null;
    // Zeroed: an entry left to the owner reads as not handled.
    const records = Buffer.alloc(tasks.length * RECORD_BYTES);
    const collected: Array<[number, Uint8Array]> = [];
    tasks.forEach((task, slot) => {
      const observed = isLarge(task) ? digestLarge(task) : digest(task, block);
      if (observed === null) return;
      record(records, slot * RECORD_BYTES, observed);
      if (observed.collected !== null) collected.push([task.index, observed.collected]);
    });
    return { records, collected };
  };
}

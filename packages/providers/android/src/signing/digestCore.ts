// What one read of an APK computes, apart from how the bytes are read: the SHA-256 of the file (the
// package's identity), the chunked digests that APK Signature Scheme v2/v3 signers sign, and the CRC-32
// of one range (an entry's data). The signed digests cover the ZIP entries before the signing block,
// the central directory and the end record (whose directory offset reads as the block's), each section
// cut into 1 MiB chunks. ./fileDigests.ts reads asynchronously on the calling thread; the digest thread
// (./digestWorker.ts) reads synchronously with {@link digestFileSync}. This module imports nothing but
// Node.js built-ins, so the thread starts with little to load.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { giveBackScratch, takeScratch } from '../format/scratch.js';
import { CheckFailed } from './result.js';

/** The size of a signed chunk, and of each read. */
export const CHUNK = 1024 * 1024;

/** Where an APK's signing block, central directory and end record start. */
export interface BlockPlace {
  start: number;
  cd: number;
  eocd: number;
}

/** What to compute in one read of a file of `size` bytes. */
export interface DigestRequest {
  size: number;
  /** The signing block's place: the chunked digests of `hashes` are computed only with one. */
  block: BlockPlace | null;
  hashes: readonly string[];
  /** Whether the SHA-256 of the whole file is computed. */
  whole: boolean;
  /** The range whose CRC-32 is computed (outside the block), or null. */
  crcRange: { start: number; end: number } | null;
}

/** What a {@link DigestRequest} computed. */
export interface FileDigests {
  /** SHA-256 of every byte of the file (hex), or null when it was not asked for. */
  sha256: string | null;
  /** The APK Signature Scheme content digest per hash asked for (empty without a signing block). */
  chunked: Map<string, Buffer>;
  /** CRC-32 of the bytes in the range asked for, or null when none was. */
  crc32: number | null;
}

/** The ranges to read, in order, each with whether its chunks are signed; the end record is apart. */
export function sectionsOf(request: DigestRequest): { from: number; to: number; sign: boolean }[] {
  const { size, block, hashes, whole, crcRange } = request;
  if (block === null || hashes.length === 0) {
    if (whole) return [{ from: 0, to: size, sign: false }];
    return crcRange === null ? [] : [{ from: crcRange.start, to: Math.min(crcRange.end, size), sign: false }];
  }
  const out = [{ from: 0, to: block.start, sign: true }];
  if (whole) out.push({ from: block.start, to: block.cd, sign: false });
  out.push({ from: block.cd, to: block.eocd, sign: true });
  return out;
}

/** The digests of a {@link DigestRequest}, fed the sections' bytes in order, then the end record. */
export class DigestState {
  private readonly whole: Hash | null;
  private readonly chunked: { hash: string; digests: Buffer[] }[];
  private readonly prefix = Buffer.alloc(5);
  private crc = 0;

  constructor(private readonly request: DigestRequest) {
    this.whole = request.whole ? createHash('sha256') : null;
    this.chunked = request.block === null ? [] : request.hashes.map((hash) => ({ hash, digests: [] }));
  }

  /** Whether the end record must be read (and given to {@link end}). */
  get signed(): boolean {
    return this.chunked.length > 0;
  }

  /** `chunk`, read at file offset `at`, at most {@link CHUNK} bytes, cut from its section's start. */
  feed(chunk: Buffer, at: number, sign: boolean): void {
    this.whole?.update(chunk);
    if (sign) this.sign(chunk);
    const range = this.request.crcRange;
    if (range !== null && at < range.end && at + chunk.length > range.start)
      this.crc = crc32(chunk.subarray(Math.max(0, range.start - at), Math.min(chunk.length, range.end - at)), this.crc);
  }

  /** The end record's bytes (from the block's `eocd` to the end of the file); they are changed. */
  end(eocd: Buffer): void {
    this.whole?.update(eocd);
    eocd.writeUInt32LE(this.request.block!.start, 16);
    this.sign(eocd);
  }

  result(): FileDigests {
    const out = new Map<string, Buffer>();
    for (const c of this.chunked) out.set(c.hash, top(c.hash, c.digests));
    return {
      sha256: this.whole?.digest('hex') ?? null,
      chunked: out,
      crc32: this.request.crcRange === null ? null : this.crc >>> 0,
    };
  }

  private sign(chunk: Buffer): void {
    this.prefix[0] = 0xa5;
    this.prefix.writeUInt32LE(chunk.length, 1);
    for (const c of this.chunked) c.digests.push(createHash(c.hash).update(this.prefix).update(chunk).digest());
  }
}

function top(hash: string, digests: readonly Buffer[]): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = 0x5a;
  prefix.writeUInt32LE(digests.length, 1);
  const h: Hash = createHash(hash).update(prefix);
  for (const d of digests) h.update(d);
  return h.digest();
}

/** Thrown by {@link digestFileSync} when `stopped` says so between two reads. */
export class DigestStopped extends Error {}

/**
 * Computes `request` over the open file `fd` with synchronous reads through one reused buffer (on the
 * digest thread). A file shorter than the request says is a {@link CheckFailed}.
 */
export function digestFileSync(fd: number, request: DigestRequest, stopped: () => boolean): FileDigests {
  const state = new DigestState(request);
  const buffer = takeScratch();
  const exactly = (into: Buffer, at: number): Buffer => {
    let done = 0;
    while (done < into.length) {
      const n = readSync(fd, into, done, into.length - done, at + done);
      if (n === 0) throw new CheckFailed('the file is shorter than its ZIP directory says');
      done += n;
    }
    return into;
  };
  for (const { from, to, sign } of sectionsOf(request)) {
    for (let at = from; at < to;) {
      if (stopped()) throw new DigestStopped('stopped');
      const chunk = exactly(buffer.subarray(0, Math.min(CHUNK, to - at)), at);
      state.feed(chunk, at, sign);
      at += chunk.length;
    }
  }
  if (state.signed) state.end(exactly(Buffer.alloc(request.size - request.block!.eocd), request.block!.eocd));
  giveBackScratch(buffer);
  return state.result();
}

// The digests computed over a whole APK, in one sequential read through two reused buffers (the next
// chunk is read while this one is hashed): the SHA-256 of the file (the package's identity) and the
// chunked digests that APK Signature Scheme v2/v3 signers sign. Those cover the ZIP entries before the signing block, the central directory and the end record
// (whose directory offset reads as the block's), each section cut into 1 MiB chunks.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { throwIfAborted } from '@rea/evidence';
import type { LocatedBlock, ReadAt } from '../format/signingBlock.js';
import { CheckFailed } from './result.js';

const CHUNK = 1024 * 1024;

/** What {@link digestFile} computed. */
export interface FileDigests {
  /** SHA-256 of every byte of the file (hex), or null when it was not asked for. */
  sha256: string | null;
  /** The APK Signature Scheme content digest per hash asked for (empty without a signing block). */
  chunked: Map<string, Buffer>;
  /** CRC-32 of the bytes in the range asked for (an entry's data), or null when none was. */
  crc32: number | null;
}

/**
 * Reads the file once and computes its SHA-256 when `whole` is set, the chunked content digest for
 * each of `hashes` when it has a signing block (`block`), and the CRC-32 of the bytes in `crcRange`
 * (which must lie outside the block). A file shorter than its ZIP directory says is a
 * {@link CheckFailed}; an aborted `signal` is `cancelled`.
 */
export async function digestFile(
  file: ReadAt,
  size: number,
  block: LocatedBlock | null,
  hashes: readonly string[],
  whole: boolean,
  signal: AbortSignal | undefined,
  crcRange: { start: number; end: number } | null = null,
): Promise<FileDigests> {
  let crc = 0;
  const file256 = whole ? createHash('sha256') : null;
  const chunked = block === null ? [] : hashes.map((hash) => ({ hash, digests: [] as Buffer[] }));
  // Two buffers: the read of the next chunk (in the thread pool) runs while this one is hashed.
  const buffers = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)] as const;
  const prefix = Buffer.alloc(5);
  const signed = (chunk: Buffer): void => {
    prefix[0] = 0xa5;
    prefix.writeUInt32LE(chunk.length, 1);
    for (const c of chunked) c.digests.push(createHash(c.hash).update(prefix).update(chunk).digest());
  };
  /** Reads [from, to) in chunks cut from `from`, each fed to the whole-file hash and, if `sign`, signed. */
  const section = async (from: number, to: number, sign: boolean): Promise<void> => {
    if (!sign && file256 === null && crcRange === null) return;
    const readAt = (at: number, n: number): Promise<Buffer> => {
      const want = Math.min(CHUNK, to - at);
      const chunk = file.read(buffers[n % 2]!, 0, want, at).then(({ bytesRead }) => {
        if (bytesRead !== want) throw new CheckFailed('the file is shorter than its ZIP directory says');
        return buffers[n % 2]!.subarray(0, want);
      });
      // A read left in flight by an abort or a failed hash is never awaited: its failure is not unhandled.
      chunk.catch(() => {});
      return chunk;
    };
    let next: Promise<Buffer> | null = from < to ? readAt(from, 0) : null;
    for (let at = from, n = 1; next !== null; n++) {
      throwIfAborted(signal, 'hashing');
      const chunk = await next;
      const following = at + chunk.length;
      // The other buffer is free (its chunk was hashed before this one was read): read ahead into it.
      next = following < to ? readAt(following, n) : null;
      file256?.update(chunk);
      if (sign) signed(chunk);
      if (crcRange !== null && at < crcRange.end && following > crcRange.start)
        crc = crc32(chunk.subarray(Math.max(0, crcRange.start - at), Math.min(chunk.length, crcRange.end - at)), crc);
      at = following;
    }
  };
  if (block === null || chunked.length === 0) {
    await section(0, size, false);
  } else {
    await section(0, block.start, true);
    await section(block.start, block.cd, false);
    await section(block.cd, block.eocd, true);
    const eocd = Buffer.alloc(size - block.eocd);
    const { bytesRead } = await file.read(eocd, 0, eocd.length, block.eocd);
    if (bytesRead !== eocd.length) throw new CheckFailed('the file is shorter than its ZIP directory says');
    file256?.update(eocd);
    eocd.writeUInt32LE(block.start, 16);
    signed(eocd);
  }
  const out = new Map<string, Buffer>();
  for (const c of chunked) out.set(c.hash, top(c.hash, c.digests));
  return { sha256: file256?.digest('hex') ?? null, chunked: out, crc32: crcRange === null ? null : crc >>> 0 };
}

function top(hash: string, digests: readonly Buffer[]): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = 0x5a;
  prefix.writeUInt32LE(digests.length, 1);
  const h: Hash = createHash(hash).update(prefix);
  for (const d of digests) h.update(d);
  return h.digest();
}

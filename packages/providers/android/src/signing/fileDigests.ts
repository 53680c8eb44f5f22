// The digests computed over a whole APK (see ./digestCore.ts), in one sequential read on the calling
// thread through two reused buffers: the next chunk is read (in the thread pool) while this one is hashed.
import { readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { throwIfAborted } from '@rea/evidence';
import type { ReadAt } from '../format/signingBlock.js';
import { giveBackScratch, takeScratch } from '../format/scratch.js';
import { CHUNK, DigestState, sectionsOf } from './digestCore.js';
import type { BlockPlace, FileDigests } from './digestCore.js';
import { CheckFailed } from './result.js';

export type { FileDigests } from './digestCore.js';

/**
 * Reads the file once and computes its SHA-256 when `whole` is set, the chunked content digest for
 * each of `hashes` when it has a signing block (`block`), and the CRC-32 of the bytes in `crcRange`
 * (which must lie outside the block). A file shorter than its ZIP directory says is a
 * {@link CheckFailed}; an aborted `signal` is `cancelled`.
 */
export async function digestFile(
  file: ReadAt,
  size: number,
  block: BlockPlace | null,
  hashes: readonly string[],
  whole: boolean,
  signal: AbortSignal | undefined,
  crcRange: { start: number; end: number } | null = null,
): Promise<FileDigests> {
  const request = { size, block, hashes, whole, crcRange };
  const state = new DigestState(request);
  // Two buffers: the read of the next chunk (in the thread pool) runs while this one is hashed.
  const buffers = [takeScratch(), takeScratch()] as const;
  const readAt = (at: number, to: number, n: number): Promise<Buffer> => {
    const want = Math.min(CHUNK, to - at);
    const chunk = file.read(buffers[n % 2]!, 0, want, at).then(({ bytesRead }) => {
      if (bytesRead !== want) throw new CheckFailed('the file is shorter than its ZIP directory says');
      return buffers[n % 2]!.subarray(0, want);
    });
    // A read left in flight by an abort or a failed hash is never awaited: its failure is not unhandled.
    chunk.catch(() => {});
    return chunk;
  };
  for (const { from, to, sign } of sectionsOf(request)) {
    let next: Promise<Buffer> | null = from < to ? readAt(from, to, 0) : null;
    for (let at = from, n = 1; next !== null; n++) {
      throwIfAborted(signal, 'hashing');
      const chunk = await next;
      const following = at + chunk.length;
      // The other buffer is free (its chunk was hashed before this one was read): read ahead into it.
      next = following < to ? readAt(following, to, n) : null;
      state.feed(chunk, at, sign);
      at = following;
    }
  }
  // Every read has settled: the buffers can serve the next call.
  for (const buffer of buffers) giveBackScratch(buffer);
  if (state.signed) {
    const eocd = Buffer.alloc(size - block!.eocd);
    const { bytesRead } = await file.read(eocd, 0, eocd.length, block!.eocd);
    if (bytesRead !== eocd.length) throw new CheckFailed('the file is shorter than its ZIP directory says');
    state.end(eocd);
  }
  return state.result();
}

/**
 * The CRC-32 of the bytes in `range` of the open file `fd`, read here through one scratch buffer (no
 * round trip through the thread pool per chunk). A file shorter than the range is a {@link CheckFailed}.
 */
export function crcOfRange(
  fd: number,
  range: { start: number; end: number },
  signal: AbortSignal | undefined,
): { crc32: number } {
  const buffer = takeScratch();
  try {
    let crc = 0;
    for (let at = range.start; at < range.end;) {
      throwIfAborted(signal, 'hashing');
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, range.end - at), at);
      if (n === 0) throw new CheckFailed('the file is shorter than its ZIP directory says');
      crc = crc32(buffer.subarray(0, n), crc);
      at += n;
    }
    return { crc32: crc >>> 0 };
  } finally {
    // Every read was made at once: none can fill the buffer later.
    giveBackScratch(buffer);
  }
}

// Reused read buffers of 1 MiB. A buffer fresh from the system costs a page fault per 4 KiB page the
// first time each page is written, and a long-lived process (the MCP server) would pay that again on
// every call that reads a large file through new buffers. Imports nothing, so the digest thread can
// use it without loading more.

/** The size of a scratch buffer. */
export const SCRATCH = 1024 * 1024;
/** Buffers kept for reuse (two for a double-buffered read, one for a page cache, one spare). */
const KEEP = 4;
const free: Buffer[] = [];

/** A buffer of {@link SCRATCH} bytes, reused if one was given back; its contents are arbitrary. */
export function takeScratch(): Buffer {
  return free.pop() ?? Buffer.allocUnsafeSlow(SCRATCH);
}

/**
 * Gives `buffer` (from {@link takeScratch}) back for reuse. Only a buffer nothing reads or writes any
 * more: one a read may still fill (left in flight by a cancelled call) is never given back.
 */
export function giveBackScratch(buffer: Buffer): void {
  if (buffer.length === SCRATCH && buffer.byteOffset === 0 && free.length < KEEP && !free.includes(buffer))
    free.push(buffer);
}

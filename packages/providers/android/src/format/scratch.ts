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

/** The largest buffer kept for whole reads (see {@link takeLarge}). */
export const LARGE_MAX = 32 * 1024 * 1024;
/** How long the large buffer is kept after its last use. */
const LARGE_IDLE_MS = 30_000;
let large: Buffer | null = null;
let largeLent = false;
let largeTimer: NodeJS.Timeout | null = null;
/** Whole reads asked for so far: the first is refused (see {@link takeLarge}). */
let largeAsks = 0;

/**
 * A buffer of at least `size` bytes, for reading a large structure whole (an APK's resource table): one
 * buffer kept across calls, so that a warm server does not fault in tens of megabytes per call. Null
 * when `size` is over {@link LARGE_MAX}, when the buffer is lent already, and on a process's first ask
 * (a command that reads one package would pay the faults for nothing): the caller then reads another
 * way. It is dropped {@link LARGE_IDLE_MS} after its last use.
 */
export function takeLarge(size: number): Buffer | null {
  if (size > LARGE_MAX || largeLent || ++largeAsks < 2) return null;
  // Whole MiB, so that a slightly larger table next time does not allocate again.
  if (large === null || large.length < size)
    large = Buffer.allocUnsafeSlow(Math.ceil(Math.max(size, 1) / SCRATCH) * SCRATCH);
  largeLent = true;
  if (largeTimer !== null) clearTimeout(largeTimer);
  largeTimer = null;
  return large;
}

/** Gives back the buffer of {@link takeLarge}; nothing may read or keep a view of it any more. */
export function giveBackLarge(buffer: Buffer): void {
  if (buffer !== large) return;
  largeLent = false;
  largeTimer = setTimeout(() => {
    if (!largeLent) large = null;
    largeTimer = null;
  }, LARGE_IDLE_MS);
  largeTimer.unref();
}

import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Bytes handed to a stream at once when a large message is written. */
export const WRITE_CHUNK = 1 << 16;

/**
 * Resolves when `stream` drains or closes, rejects when it fails first; every listener it added is
 * removed again whichever comes first. (A race of `events.once` promises leaves the losers' listeners
 * on the stream: two per chunk that waited, for as long as the connection lives.)
 */
export function drainedOrClosed(stream: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      stream.off('drain', settled);
      stream.off('close', settled);
      stream.off('error', failed);
    };
    const settled = (): void => {
      settle();
      resolve();
    };
    const failed = (error: Error): void => {
      settle();
      reject(error);
    };
    stream.on('drain', settled);
    stream.on('close', settled);
    stream.on('error', failed);
  });
}

/**
 * Text for `stream`, taken a piece at a time (`put`) and written a chunk of about {@link WRITE_CHUNK}
 * at a time: when a chunk is full, `put` returns the promise of its writing (the stream's `drain`
 * awaited when it asks for it, then a turn of the event loop, so that requests arriving meanwhile are
 * read and served), which the caller awaits before the next piece. A piece longer than a chunk (a
 * record's whole text) is written a chunk of it at a time, never encoded whole. `end` writes the rest.
 * Both reject when the stream has closed.
 */
export function chunkedWriter(stream: Writable): {
  put(piece: string): Promise<void> | undefined;
  end(): Promise<void>;
} {
  let chunk = '';
  /** The rest of a long piece, written after the current chunk. */
  let rest = '';
  const flush = async (): Promise<void> => {
    if (stream.destroyed || stream.writableEnded) throw new Error('The output stream is closed.');
    if (!stream.write(chunk)) await drainedOrClosed(stream);
    chunk = '';
    await nextTurn();
  };
  /** Takes as much of `piece` as fills the chunk; what does not fit is left in `rest`. */
  const take = (piece: string): void => {
    if (chunk.length + piece.length < 2 * WRITE_CHUNK) {
      chunk += piece;
      rest = '';
      return;
    }
    let to = WRITE_CHUNK - chunk.length;
    // A surrogate pair stays in one chunk: encoded apart, each half would be written as U+FFFD.
    const last = piece.charCodeAt(to - 1);
    if (last >= 0xd800 && last <= 0xdbff) to += 1;
    chunk += piece.slice(0, to);
    rest = piece.slice(to);
  };
  const drainRest = async (): Promise<void> => {
    await flush();
    while (rest.length > 0) {
      take(rest);
      if (chunk.length >= WRITE_CHUNK) await flush();
    }
  };
  return {
    put(piece) {
      take(piece);
      if (chunk.length < WRITE_CHUNK) return undefined;
      return drainRest();
    },
    async end() {
      if (chunk.length > 0) await flush();
    },
  };
}

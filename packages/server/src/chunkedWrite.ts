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
 * Writes `pieces` (a message's text, in order) to `stream` a chunk of about {@link WRITE_CHUNK} at a
 * time, waiting for `drain` when the stream asks to and giving the event loop a turn between chunks,
 * so that requests arriving meanwhile are read and served. Throws when the stream closes first.
 */
export async function writeInChunks(stream: Writable, pieces: readonly string[]): Promise<void> {
  let chunk = '';
  const flush = async (): Promise<void> => {
    if (stream.destroyed || stream.writableEnded) throw new Error('The output stream is closed.');
    if (!stream.write(chunk)) await drainedOrClosed(stream);
    chunk = '';
    await nextTurn();
  };
  for (const piece of pieces) {
    chunk += piece;
    if (chunk.length >= WRITE_CHUNK) await flush();
  }
  if (chunk.length > 0) await flush();
}

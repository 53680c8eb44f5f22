import type { Writable } from 'node:stream';
import { chunkedWriter } from './chunkedWrite.js';
import { answeredTextIn } from './answeredText.js';
import { writeJsonInSlices } from './jsonSlices.js';

/** A message is written in slices when the text it carries is longer than this (UTF-16 code units). */
export const LARGE_FRAME_TEXT = 256 * 1024;

/** The part of an SDK transport that sends. */
export interface SendingTransport {
  send(message: never, options?: never): Promise<void>;
}

/** The length of the text content a result carries (tool results' `content`, resource reads' `contents`). */
export function carriedText(message: unknown): number {
  const result = (message as { result?: { content?: unknown; contents?: unknown } } | null)?.result;
  if (result === null || typeof result !== 'object') return 0;
  let length = 0;
  for (const list of [result.content, result.contents]) {
    if (!Array.isArray(list)) continue;
    for (const item of list as Array<{ text?: unknown }>) {
      if (typeof item?.text === 'string') length += item.text.length;
    }
  }
  return length;
}

/**
 * Lets `transport` (an SDK stdio transport writing newline-delimited frames to `stream`) send large
 * results without holding the event loop. A result carrying more than {@link LARGE_FRAME_TEXT} of text
 * is serialized a slice at a time (see ./jsonSlices.js) and written as it is serialized, a chunk at a
 * time, with a turn of the event loop between chunks and the stream's backpressure respected, so that
 * requests that arrive meanwhile are read and served and no more than a chunk of the frame's text
 * exists at once. Frames never interleave: what is sent while a large frame is being written follows
 * it, in order.
 */
export function sendLargeFramesInSlices(transport: SendingTransport, stream: Writable): void {
  const send = transport.send.bind(transport) as (message: unknown, options?: unknown) => Promise<void>;
  let pending = 0;
  let tail: Promise<unknown> = Promise.resolve();
  const enqueue = (job: () => Promise<void>): Promise<void> => {
    pending += 1;
    const run = tail.then(job).finally(() => {
      pending -= 1;
    });
    tail = run.catch(() => undefined);
    return run;
  };
  (transport as { send: unknown }).send = (message: unknown, options?: unknown): Promise<void> => {
    if (carriedText(message) <= LARGE_FRAME_TEXT) {
      return pending === 0 ? send(message, options) : enqueue(() => send(message, options));
    }
    // Taken now: a result answered while this one waits to be written must not take its text.
    const knownText = answeredTextIn(message);
    return enqueue(async () => {
      const writer = chunkedWriter(stream);
      try {
        await writeJsonInSlices(message, (piece) => writer.put(piece), knownText);
      } catch (error) {
        // A value that cannot be serialized after all: the frame begun is ended, so that the frames
        // after it stay whole lines (the client reads this one as a line that does not parse).
        if (!stream.destroyed && !stream.writableEnded) {
          await Promise.resolve(writer.put('\n'))
            .then(() => writer.end())
            .catch(() => undefined);
        }
        throw error;
      }
      await writer.put('\n');
      await writer.end();
    });
  };
}

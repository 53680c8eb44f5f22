import type { ServerResponse } from 'node:http';
import { drainedOrClosed, writeInChunks } from './chunkedWrite.js';
import { answeredTextOf } from './answeredText.js';
import { jsonInSlices } from './jsonSlices.js';
import { LARGE_FRAME_TEXT, carriedText } from './largeFrames.js';

/**
 * A server-sent event whose JSON was serialized in slices: it travels through the SDK's response
 * stream as one item and is written to the socket a chunk at a time by {@link writeResponseBody}.
 */
export class SlicedEvent {
  /** The event's text: its `event:`/`id:` lines, `data: `, the JSON in pieces, and the blank line. */
  constructor(readonly pieces: readonly string[]) {}
}

type SseController = { enqueue(chunk: unknown): void };
type WriteEvent = (controller: SseController, encoder: unknown, message: object, eventId?: string) => boolean;

/** The parts of the SDK's Streamable HTTP transport that send and write events. */
interface EventTransport {
  send(message: never, options?: never): Promise<void>;
  onerror?: ((error: Error) => void) | undefined;
}

/**
 * Lets `transport` (the SDK's Streamable HTTP server transport, answering over server-sent events)
 * send large results without holding the event loop: a message carrying more than
 * {@link LARGE_FRAME_TEXT} of text is serialized a slice at a time before the SDK sees it, and its event
 * is handed to the response stream as a {@link SlicedEvent} that {@link writeResponseBody} writes in
 * chunks. Every response stream carries one request's messages, so nothing else waits behind it.
 */
export function sendLargeEventsInSlices(transport: EventTransport): void {
  const target = transport as unknown as { send: EventTransport['send']; writeSSEEvent: WriteEvent };
  const send = target.send.bind(transport) as (message: object, options?: unknown) => Promise<void>;
  const writeEvent = target.writeSSEEvent.bind(transport);
  const prepared = new WeakMap<object, string[]>();
  target.send = (async (message: object, options?: unknown): Promise<void> => {
    if (carriedText(message) > LARGE_FRAME_TEXT) prepared.set(message, await jsonInSlices(message, answeredTextOf));
    return send(message, options);
  }) as EventTransport['send'];
  target.writeSSEEvent = (controller, encoder, message, eventId) => {
    const json = prepared.get(message);
    if (!json) return writeEvent(controller, encoder, message, eventId);
    prepared.delete(message);
    try {
      controller.enqueue(
        new SlicedEvent([`event: message\n${eventId ? `id: ${eventId}\n` : ''}data: `, ...json, '\n\n']),
      );
      return true;
    } catch (error) {
      transport.onerror?.(error as Error);
      return false;
    }
  };
}

/**
 * Writes a response body read from `reader` to `res`: bytes as they come (waiting for `drain` when
 * the socket asks to), a {@link SlicedEvent} a chunk of about 64 KiB at a time with turns of the event
 * loop between chunks. Throws when the response closes before its end.
 */
export async function writeResponseBody(
  reader: ReadableStreamDefaultReader<unknown>,
  res: ServerResponse,
): Promise<void> {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    if (value instanceof SlicedEvent) await writeInChunks(res, value.pieces);
    else if (res.destroyed || res.writableEnded) throw new Error('The response is closed.');
    else if (!res.write(value as Uint8Array)) await drainedOrClosed(res);
  }
}

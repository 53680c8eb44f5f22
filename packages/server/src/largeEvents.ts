import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { chunkedWriter, drainedOrClosed } from './chunkedWrite.js';
import { answeredTextIn } from './answeredText.js';
import { writeJsonInSlices } from './jsonSlices.js';
import { LARGE_FRAME_TEXT, carriedText } from './largeFrames.js';

/**
 * A server-sent event whose JSON is serialized in slices as it is written: it travels through the SDK's
 * response stream as one item and is written to the socket a chunk at a time by
 * {@link writeResponseBody}.
 */
export class SlicedEvent {
  constructor(
    /** The event's `event:`/`id:` lines and `data: `. */
    private readonly head: string,
    private readonly message: object,
    /** The JSON already written of parts of the message (see ./answeredText.js). */
    private readonly knownText: (node: object) => string | undefined,
  ) {}

  /** Writes the event to `stream`, its JSON serialized a slice at a time (see ./jsonSlices.js). */
  async writeTo(stream: Writable): Promise<void> {
    const writer = chunkedWriter(stream);
    await writer.put(this.head);
    await writeJsonInSlices(this.message, (piece) => writer.put(piece), this.knownText);
    await writer.put('\n\n');
    await writer.end();
  }
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
 * send large results without holding the event loop: the event of a message carrying more than
 * {@link LARGE_FRAME_TEXT} of text is handed to the response stream as a {@link SlicedEvent}, which
 * {@link writeResponseBody} serializes and writes a slice at a time. Every response stream carries one
 * request's messages, so nothing else waits behind it.
 */
export function sendLargeEventsInSlices(transport: EventTransport): void {
  const target = transport as unknown as { send: EventTransport['send']; writeSSEEvent: WriteEvent };
  const send = target.send.bind(transport) as (message: object, options?: unknown) => Promise<void>;
  const writeEvent = target.writeSSEEvent.bind(transport);
  const large = new WeakMap<object, (node: object) => string | undefined>();
  target.send = ((message: object, options?: unknown): Promise<void> => {
    // The answered text is taken now: a result answered meanwhile must not take it.
    if (carriedText(message) > LARGE_FRAME_TEXT) large.set(message, answeredTextIn(message));
    return send(message, options);
  }) as EventTransport['send'];
  target.writeSSEEvent = (controller, encoder, message, eventId) => {
    const knownText = large.get(message);
    if (!knownText) return writeEvent(controller, encoder, message, eventId);
    large.delete(message);
    try {
      controller.enqueue(
        new SlicedEvent(`event: message\n${eventId ? `id: ${eventId}\n` : ''}data: `, message, knownText),
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
    if (value instanceof SlicedEvent) await value.writeTo(res);
    else if (res.destroyed || res.writableEnded) throw new Error('The response is closed.');
    else if (!res.write(value as Uint8Array)) await drainedOrClosed(res);
  }
}

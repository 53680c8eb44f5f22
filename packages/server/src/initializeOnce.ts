import type { Transport } from '@modelcontextprotocol/server';
import { INVALID_REQUEST, frameError, usableId } from './frames.js';

/** The message a repeated `initialize` is refused with (the words of the SDK's HTTP transport). */
const ALREADY_INITIALIZED = 'Invalid Request: Server already initialized; initialize is sent once per connection.';

/**
 * Lets `initialize` through `transport` (already connected, its `onmessage` set) once: a later one is
 * answered -32600 for its id and never reaches the server, so the protocol version, client and
 * capabilities the connection negotiated stay as they are. (The SDK's stdio transport passes every
 * `initialize` on, and the server would negotiate again; its HTTP transport refuses a second one
 * itself, before this sees it.) `negotiated` tells whether a handshake already took place, for an
 * `initialize` delivered before this wrapped the transport.
 */
export function answerInitializeOnce(transport: Transport, negotiated: () => boolean): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  let seen = false;
  transport.onmessage = (message, extra) => {
    const { method } = message as { method?: unknown };
    if (method === 'initialize' && 'id' in message) {
      if (seen || negotiated()) {
        void transport
          .send(frameError(usableId(message), INVALID_REQUEST, ALREADY_INITIALIZED) as never)
          .catch(() => undefined);
        return;
      }
      seen = true;
    }
    deliver.call(transport, message, extra);
  };
}

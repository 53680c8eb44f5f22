// JSON-RPC batches over stdio. The SDK's stdio transport reads one message a line, so a batch line (an
// array, for a protocol version that has batches) is handed to it a member at a time; the responses to
// the batch's requests are held back as the server answers them and written together, as one array on
// one line, once the last of them is answered. A batch of notifications alone is answered with nothing.
import { isObject, usableId } from './frames.js';
import type { FrameId } from './frames.js';

/** The id of a request (a message with a method and an id), else null. */
function requestId(message: unknown): FrameId | null {
  return isObject(message) && typeof message['method'] === 'string' ? usableId(message) : null;
}

/** The id a response answers (a message with an id and no method), else null. */
function answeredId(message: unknown): FrameId | null {
  return isObject(message) && !('method' in message) ? usableId(message) : null;
}

/** The request a `notifications/cancelled` cancels, else null. */
function cancelledId(message: unknown): FrameId | null {
  if (!isObject(message) || message['method'] !== 'notifications/cancelled') return null;
  const params = message['params'];
  return isObject(params) ? usableId({ id: params['requestId'] }) : null;
}

/** One batch being answered: the requests not answered yet, and the responses held. */
interface OpenBatch {
  waiting: Set<FrameId>;
  replies: unknown[];
}

/** Holds the responses to the requests of open batches until each batch is answered whole. */
export interface BatchReplies {
  /** Opens a batch of `messages` (forwarded to the server one by one after this call). */
  open(messages: readonly unknown[]): void;
  /** Notes a single message forwarded to the server: a cancellation may close a batch. */
  note(message: unknown): void;
  /** Takes `message` when it answers a request of an open batch (it is then not to be sent alone). */
  take(message: unknown): boolean;
}

/**
 * Collects batch responses and hands each batch's array to `send` once it is complete. A request that
 * is cancelled (`notifications/cancelled`, in the batch or after it) gets no response, as MCP has it,
 * and the batch is answered without it.
 */
export function batchReplies(send: (replies: unknown[]) => void): BatchReplies {
  const batchOf = new Map<FrameId, OpenBatch>();
  const settle = (batch: OpenBatch): void => {
    if (batch.waiting.size > 0 || batch.replies.length === 0) return;
    send(batch.replies);
  };
  const cancel = (id: FrameId): void => {
    const batch = batchOf.get(id);
    if (batch === undefined) return;
    batchOf.delete(id);
    batch.waiting.delete(id);
    settle(batch);
  };
  return {
    open(messages) {
      const batch: OpenBatch = { waiting: new Set(), replies: [] };
      for (const message of messages) {
        const id = requestId(message);
        // A request whose id is still awaited (in this batch or another) is answered once, to the first.
        if (id !== null && !batchOf.has(id)) {
          batch.waiting.add(id);
          batchOf.set(id, batch);
        }
      }
      for (const message of messages) {
        const id = cancelledId(message);
        if (id !== null) cancel(id);
      }
    },
    note(message) {
      const id = cancelledId(message);
      if (id !== null) cancel(id);
    },
    take(message) {
      const id = answeredId(message);
      const batch = id === null ? undefined : batchOf.get(id);
      if (batch === undefined) return false;
      batchOf.delete(id!);
      batch.waiting.delete(id!);
      batch.replies.push(message);
      settle(batch);
      return true;
    },
  };
}

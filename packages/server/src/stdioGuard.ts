import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { INVALID_REQUEST, checkMessage, frameError, frameRefusal, leadingId, parseFrame } from './frames.js';
import type { FrameErrorResponse, MessageParser } from './frames.js';

/** Options of {@link createStdioGuard}. */
export interface StdioGuardOptions {
  /** The SDK's message validator. */
  parse: MessageParser;
  /** Sends an answer to a frame that is not forwarded (through the transport, the one writer of stdout). */
  reply: (response: FrameErrorResponse) => void;
  /** Called with why a frame was not forwarded (answered or dropped). */
  refused: (reason: string) => void;
  /** Longest line read, in bytes; a longer one is answered with -32600 and skipped. */
  maxLineBytes: number;
  /**
   * Whether a batch (a line holding a non-empty array of messages) is taken now: null when it is, else
   * the answer that refuses it whole. Without this option every batch is refused.
   */
  batchRefusal?: () => FrameErrorResponse | null;
  /** Called with the messages of a batch taken, before they are passed on one a line. */
  batch?: (messages: readonly unknown[]) => void;
  /** Called with each single message passed on. */
  message?: (message: unknown) => void;
}

const NEWLINE = 0x0a;

/**
 * A line filter in front of the SDK's stdio transport: valid JSON-RPC lines pass through unchanged;
 * every other line is answered (see ./frames.js) and not passed on. Blank lines are skipped, like the
 * SDK does. A line longer than `maxLineBytes` is answered once (for the id its first bytes hold, see
 * leadingId) and discarded up to its newline, so one oversized frame neither grows memory without
 * bound nor ends the connection.
 */
export function createStdioGuard(options: StdioGuardOptions): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;

  const handle = (line: Buffer, push: (chunk: Buffer) => void): void => {
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    const parsed = parseFrame(text);
    if (!parsed.ok) return refuse(parsed.response.error.message, parsed.response);
    const value = parsed.value;
    if (Array.isArray(value) && value.length > 0 && options.batchRefusal !== undefined) {
      const refused = options.batchRefusal() ?? frameRefusal(value, options.parse);
      if (refused !== null) return refuse(refused.error.message, refused);
      options.batch?.(value);
      // One line a member, as the SDK's transport reads them.
      for (const member of value) push(Buffer.from(`${JSON.stringify(member)}\n`));
      return;
    }
    const check = checkMessage(value, options.parse);
    if (check.ok) {
      options.message?.(value);
      push(Buffer.concat([line, Buffer.from('\n')]));
      return;
    }
    refuse(check.reason, check.response);
  };

  const refuse = (reason: string, response: FrameErrorResponse | null): void => {
    options.refused(reason);
    if (response) options.reply(response);
  };

  // Answered for the id its first bytes give, when they give one, so that its caller stops waiting.
  const tooLong = (head: Buffer): void => {
    const reason = `Invalid Request: a frame longer than ${options.maxLineBytes} bytes is not read.`;
    options.refused(reason);
    options.reply(frameError(leadingId(head), INVALID_REQUEST, reason));
  };

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      let data = chunk;
      for (let index = data.indexOf(NEWLINE); index >= 0; index = data.indexOf(NEWLINE)) {
        const head = data.subarray(0, index);
        data = data.subarray(index + 1);
        if (skipping) {
          skipping = false;
          continue;
        }
        const line = pending.length === 0 ? head : Buffer.concat([...pending, head]);
        pending = [];
        pendingBytes = 0;
        if (line.length > options.maxLineBytes) tooLong(line);
        else handle(line, (out) => this.push(out));
      }
      if (data.length === 0 || skipping) return done();
      pending.push(data);
      pendingBytes += data.length;
      if (pendingBytes > options.maxLineBytes) {
        // Its first 64 KiB, where its id is looked for.
        const first: Buffer[] = [];
        for (let bytes = 0; bytes < 65_536 && first.length < pending.length; bytes += first.at(-1)!.length)
          first.push(pending[first.length]!);
        const head = Buffer.concat(first);
        pending = [];
        pendingBytes = 0;
        skipping = true;
        tooLong(head);
      }
      done();
    },
  });
}

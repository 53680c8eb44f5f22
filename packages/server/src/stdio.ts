import type { Readable, Writable } from 'node:stream';
import { createConnection } from './server.js';
import { sendLargeFramesInSlices } from './largeFrames.js';
import { batchRefusal, hasBatches } from './batches.js';
import { batchReplies } from './batchReplies.js';
import { createStdioGuard } from './stdioGuard.js';
import type { ShutdownReport } from './server.js';
import { runtimeOf } from './runtime.js';
import type { ReaServerOptions } from './runtime.js';

/** A running stdio server. */
export interface StdioServerHandle {
  /**
   * Cancels the calls in flight and waits (bounded) for their cleanup, then closes the session
   * (provider, ledger) and the transport; resolves with what it cancelled and left.
   */
  close(): Promise<ShutdownReport>;
  /** Settles when the connection has closed (stdin ended or close() was called). */
  readonly closed: Promise<void>;
}

/** Options of {@link runStdioServer}: the server options, plus the streams (default: this process's stdio). */
export type StdioServerOptions = ReaServerOptions & { stdin?: Readable; stdout?: Writable };

/**
 * Serves one MCP connection over stdio. Nothing but protocol frames reaches stdout: console output
 * of this process is redirected to stderr, and logs go to stderr and to MCP logging. The connection
 * ends when stdin ends.
 */
export async function runStdioServer(options: StdioServerOptions): Promise<StdioServerHandle> {
  const stdout = options.stdout ?? process.stdout;
  if (stdout === process.stdout) {
    // Anything that writes to the console must not corrupt the frame stream.
    console.log = console.error;
    console.info = console.error;
    console.debug = console.error;
  }
  const runtime = runtimeOf(options);
  const connection = createConnection(runtime, 'stdio');
  const [
    { StdioServerTransport },
    { parseJSONRPCMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE, SUPPORTED_PROTOCOL_VERSIONS },
  ] = await Promise.all([import('@modelcontextprotocol/server/stdio'), import('@modelcontextprotocol/server')]);
  const stdin = options.stdin ?? process.stdin;
  // Frames that are not valid JSON-RPC are answered by the guard; the SDK sees only valid ones.
  let transport: InstanceType<typeof StdioServerTransport> | null = null;
  // A batch's responses are written together, as one array, once its last request is answered.
  const batches = batchReplies((replies) => void transport?.send(replies as never).catch(() => undefined));
  const guard = createStdioGuard({
    parse: parseJSONRPCMessage,
    // JSON-RPC answers an unreadable id with `id: null`, which the SDK's message type does not model;
    // the transport only serializes it.
    reply: (response) => void transport?.send(response as never).catch(() => undefined),
    refused: (reason) => runtime.localLogger.warn('invalid JSON-RPC frame refused', { reason }),
    // A forwarded line and its newline must fit the SDK's read buffer, which closes the connection otherwise.
    maxLineBytes: STDIO_DEFAULT_MAX_BUFFER_SIZE - 1,
    // Batches are taken for a protocol version that has them (2025-03-26 and before), once negotiated.
    batchRefusal: () => {
      const version = connection.protocolVersion();
      return hasBatches(version, SUPPORTED_PROTOCOL_VERSIONS) ? null : batchRefusal(version);
    },
    batch: (messages) => batches.open(messages),
    message: (message) => batches.note(message),
  });
  stdin.on('error', (error) => guard.destroy(error));
  stdin.pipe(guard);
  transport = new StdioServerTransport(guard, stdout);
  // A large result is serialized and written in slices, so that the connection keeps being served.
  sendLargeFramesInSlices(transport, stdout);
  const sendAlone = transport.send.bind(transport);
  transport.send = (message) => (batches.take(message) ? Promise.resolve() : sendAlone(message));
  void connection.closed.then(() => {
    stdin.unpipe(guard);
    // Like the SDK's transport does on close: a paused stdin lets the process exit.
    if (stdin.listenerCount('data') === 0) stdin.pause();
  });
  await connection.connect(transport);
  runtime.logger.info('REA MCP server listening on stdio', { tools: runtime.knownToolCount() });
  return { close: () => connection.close(), closed: connection.closed };
}

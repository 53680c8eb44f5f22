import type { Readable, Writable } from 'node:stream';
import { createConnection } from './server.js';
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
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  await connection.connect(new StdioServerTransport(options.stdin ?? process.stdin, stdout));
  runtime.logger.info('REA MCP server listening on stdio', { tools: runtime.knownToolCount() });
  return { close: () => connection.close(), closed: connection.closed };
}

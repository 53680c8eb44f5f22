import type { Server, ServerContext, Transport } from '@modelcontextprotocol/server';
import { ReaError, canonicalJson, toDiagnostic } from '@rea/evidence';
import type { ConnectionCalls } from './calls.js';
import type { ServerIdentity } from './host.js';
import type { LogForwarder } from './logger.js';
import { retrying, runtimeOf } from './runtime.js';
import type { ReaServerOptions, Runtime } from './runtime.js';

/** One MCP connection of REA: its SDK server, its session and ledger. */
export interface ReaServer {
  /** Attaches to a transport (stdio, Streamable HTTP, in-memory). One transport per instance. */
  connect(transport: Transport): Promise<void>;
  /** Closes the provider session, drops the ledger and closes the transport. Idempotent. */
  close(): Promise<void>;
  /** Settles when the connection has closed (either side). */
  readonly closed: Promise<void>;
}

const LOG_LEVELS = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' } as const;

/**
 * The tool result for a call whose call path (sessions, ledgers, providers) could not load: `isError`
 * with the canonical diagnostic, never a protocol error. The load is retried by the next call.
 */
function callPathFailure(
  error: unknown,
  operation: string,
): { content: [{ type: 'text'; text: string }]; isError: true } {
  const failure = new ReaError('internal', 'The tool call machinery of the REA server could not be loaded.', {
    operation,
    details: { reason: 'call-path-load-failed', cause: toDiagnostic(error).error.message },
    remediation:
      'Reinstall REA (npx -y rea-mcp@latest mcp, or npm install rea-mcp) so that @rea/server and its dependencies are complete and of one release, then restart the server.',
  });
  return { content: [{ type: 'text', text: canonicalJson(toDiagnostic(failure)) }], isError: true };
}

/**
 * Creates one REA MCP connection. The catalog is static (server tools, extra tools, every provider's
 * tools, sorted): `tools/list` always returns all of it and `notifications/tools/list_changed` is never
 * sent. Each connection has its own session: active target, provider binding, run, lineage and ledger.
 */
export function createReaServer(options: ReaServerOptions): ReaServer {
  return createConnection(runtimeOf(options), 'custom');
}

/**
 * Internal: a connection over a known transport kind (reported by binary_session). `initialize`,
 * `tools/list` and logging are answered here; tool calls go to the call path (./calls.js), which loads
 * with the first of them and holds the connection's session and ledger from then on.
 */
export function createConnection(runtime: Runtime, transportKind: ServerIdentity['server']['transport']): ReaServer {
  const { options } = runtime;
  // The SDK loads on connect, so importing this package (e.g. for SERVER_TOOLS) stays cheaper.
  let server!: Server;
  let calls: Promise<ConnectionCalls> | null = null;
  let initialized = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const forward: LogForwarder = (level, message, data) => {
    if (!initialized) return;
    void server
      .sendLoggingMessage({ level: LOG_LEVELS[level], logger: 'rea', data: { message, ...(data ?? {}) } })
      .catch(() => undefined);
  };
  runtime.forwarders.add(forward);
  const logger = runtime.logger;
  const callsOf = retrying(
    (): Promise<ConnectionCalls> =>
      (calls = runtime.calls().then((path) => path.connection(runtime, server, transportKind))),
  );

  const attach = (): void => {
    let listResult: { tools: Array<Record<string, unknown>> } | null = null;
    server.setRequestHandler('tools/list', async () => {
      listResult ??= {
        tools: (await runtime.advertised()).tools.map((tool) => ({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
          annotations: tool.annotations,
        })),
      };
      return listResult as never;
    });
    server.setRequestHandler('tools/call', async (request, ctx: ServerContext) => {
      let path: ConnectionCalls;
      try {
        path = await callsOf();
      } catch (error) {
        return callPathFailure(error, request.params.name) as never;
      }
      return path.call(request, ctx) as never;
    });
    server.oninitialized = () => {
      initialized = true;
    };
    server.onerror = (error) => logger.warn('protocol error', { message: error.message });
    server.onclose = () => void shutdown();
  };

  let closing: Promise<void> | null = null;
  const shutdown = (): Promise<void> =>
    (closing ??= (async () => {
      runtime.forwarders.delete(forward);
      // A connection that never called a tool has no session to end.
      const cleared = calls ? await calls.then((opened) => opened.dispose()).catch(() => 0) : 0;
      runtime.localLogger.info('connection closed', { transport: transportKind, cleared_records: cleared });
      resolveClosed();
    })());

  return {
    connect: async (transport) => {
      const { Server: SdkServer } = await import('@modelcontextprotocol/server');
      server = new SdkServer(
        { name: options.package.name, version: options.package.version },
        {
          capabilities: { tools: { listChanged: false }, logging: {} },
          instructions:
            'REA investigates software without source and answers with Evidence records. Call binary_session with ' +
            '{} to see identity and which tools are available now; open_binary selects a target.',
        },
      );
      attach();
      await server.connect(transport);
    },
    close: async () => {
      await shutdown();
      if (server) await server.close().catch(() => undefined);
    },
    closed,
  };
}

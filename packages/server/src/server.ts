import type { Server, ServerContext, StandardSchemaV1, Transport } from '@modelcontextprotocol/server';
import { ReaError, canonicalJson, capEcho, toDiagnostic } from '@rea/evidence';
import type { ConnectionCalls } from './calls.js';
import { INVALID_PARAMS, RpcError } from './frames.js';
import { answerInitializeOnce } from './initializeOnce.js';
import type { ServerIdentity } from './host.js';
import { MCP_LEVEL_OF, createLogGate } from './logGate.js';
import type { LogGate } from './logGate.js';
import type { LogForwarder } from './logger.js';
import { getPrompt, listPrompts } from './prompts.js';
import { EVIDENCE_TEMPLATE, evidenceIdOf, listEvidence, missingEvidence } from './resources.js';
import { retrying, runtimeOf } from './runtime.js';
import type { ReaServerOptions, Runtime } from './runtime.js';

/** What closing a connection (or a server's every connection) did to the work in flight. */
export interface ShutdownReport {
  /** Calls that were in flight and were cancelled through their signal (their cleanup was awaited). */
  cancelled_calls: number;
  /** Owned resources still held afterwards, by kind (also logged as `cleanup_incomplete`). */
  remaining: Array<{ kind: string; identifiers: string[] }>;
}

/** One MCP connection of REA: its SDK server, its session and ledger. */
export interface ReaServer {
  /** Attaches to a transport (stdio, Streamable HTTP, in-memory). One transport per instance. */
  connect(transport: Transport): Promise<void>;
  /**
   * Cancels the calls in flight and waits (bounded) for their cleanup, closes the provider session,
   * drops the ledger and closes the transport. Idempotent; resolves with what it cancelled and left.
   */
  close(): Promise<ShutdownReport>;
  /** Settles when the connection has closed (either side). */
  readonly closed: Promise<void>;
}

/** Internal: a connection as the transports of this package see it. */
export interface Connection extends ReaServer {
  /** The protocol version `initialize` negotiated; undefined before it. */
  protocolVersion(): string | undefined;
}

/**
 * Params taken as they come: REA's handlers check them and answer -32602 with a short message. (The
 * SDK's spec-method form answers invalid params with -32603 and a dump of its schema.)
 */
const ANY_PARAMS: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'rea', validate: (value: unknown) => ({ value }) },
};

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
export function createConnection(runtime: Runtime, transportKind: ServerIdentity['server']['transport']): Connection {
  const { options } = runtime;
  // The SDK loads on connect, so importing this package (e.g. for SERVER_TOOLS) stays cheaper.
  let server!: Server;
  let calls: Promise<ConnectionCalls> | null = null;
  let initialized = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const gate: LogGate = createLogGate();
  // Server-wide entries reach this client only once it has chosen a level, and only at or above it.
  const forward: LogForwarder = (level, message, data) => {
    if (!initialized || !gate.allows(MCP_LEVEL_OF[level])) return;
    void server
      .notification({
        method: 'notifications/message',
        params: { level: MCP_LEVEL_OF[level], logger: 'rea', data: { message, ...(data ?? {}) } },
      })
      .catch(() => undefined);
  };
  runtime.forwarders.add(forward);
  const logger = runtime.logger;
  const callsOf = retrying(
    (): Promise<ConnectionCalls> =>
      (calls = runtime.calls().then((path) => path.connection(runtime, server, transportKind, gate))),
  );
  // The connection's call path once a tool call has loaded it; before that, no record is retained.
  const opened = async (): Promise<ConnectionCalls | null> => (calls ? calls.catch(() => null) : null);

  // True or false once known; null when the catalog cannot load (the call path then reports why). A name
  // of the precomputed catalog is known without loading the composition.
  const isKnownTool = async (name: string): Promise<boolean | null> => {
    try {
      if (options.advertised?.tools.some((tool) => tool.name === name)) return true;
      return (await runtime.catalog()).has(name);
    } catch {
      return null;
    }
  };

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
      // An unknown tool is a protocol error (invalid params), not a tool result.
      const name = request.params.name;
      if ((await isKnownTool(name)) === false) {
        throw new RpcError(INVALID_PARAMS, `Unknown tool: ${capEcho(name, 200)}. Call tools/list for the catalog.`);
      }
      let path: ConnectionCalls;
      try {
        path = await callsOf();
      } catch (error) {
        return callPathFailure(error, request.params.name) as never;
      }
      return path.call(request, ctx) as never;
    });
    server.setRequestHandler('logging/setLevel', { params: ANY_PARAMS }, (params) => gate.setLevel(params));
    server.setRequestHandler('resources/list', { params: ANY_PARAMS }, async (params) =>
      listEvidence((await opened())?.ledger ?? null, params),
    );
    server.setRequestHandler('resources/templates/list', { params: ANY_PARAMS }, () => ({
      resourceTemplates: [EVIDENCE_TEMPLATE],
    }));
    server.setRequestHandler('resources/read', { params: ANY_PARAMS }, async (params) => {
      const path = await opened();
      if (path) return path.readEvidence(params);
      const { uri, evidenceId } = evidenceIdOf(params);
      throw missingEvidence(uri, evidenceId);
    });
    server.setRequestHandler('prompts/list', { params: ANY_PARAMS }, () => listPrompts());
    server.setRequestHandler('prompts/get', { params: ANY_PARAMS }, (params) => getPrompt(params));
    server.oninitialized = () => {
      initialized = true;
    };
    server.onerror = (error) => logger.warn('protocol error', { message: error.message });
    server.onclose = () => void shutdown();
  };

  let closing: Promise<ShutdownReport> | null = null;
  const shutdown = (): Promise<ShutdownReport> =>
    (closing ??= (async () => {
      runtime.forwarders.delete(forward);
      // A connection that never called a tool has no session to end. Ending one cancels its calls in
      // flight and waits (bounded) for their cleanup before the transport goes.
      const report = calls
        ? await calls
            .then((opened) => opened.dispose())
            .catch(() => ({ cleared_records: 0, cancelled_calls: 0, remaining: [] }))
        : { cleared_records: 0, cancelled_calls: 0, remaining: [] };
      if (report.remaining.length > 0) {
        logger.error('cleanup_incomplete: owned resources remain after the connection closed', {
          code: 'cleanup_incomplete',
          transport: transportKind,
          remaining: report.remaining,
        });
      }
      runtime.localLogger.info('connection closed', {
        transport: transportKind,
        cleared_records: report.cleared_records,
      });
      resolveClosed();
      return { cancelled_calls: report.cancelled_calls, remaining: report.remaining };
    })());

  return {
    connect: async (transport) => {
      const { Server: SdkServer } = await import('@modelcontextprotocol/server');
      server = new SdkServer(
        { name: options.package.name, version: options.package.version },
        {
          capabilities: {
            tools: { listChanged: false },
            logging: {},
            resources: { subscribe: false, listChanged: false },
            prompts: { listChanged: false },
          },
          instructions:
            'REA investigates software without source and answers with Evidence records. Call binary_session with ' +
            '{} to see identity and which tools are available now; open_binary selects a target. Each result links ' +
            'its retained record as rea://evidence/<evidence_id> (resources/read); the prompts triage_binary, ' +
            'compare_versions and trace_feature outline common investigations.',
        },
      );
      attach();
      await server.connect(transport);
      answerInitializeOnce(transport, () => server.getNegotiatedProtocolVersion() !== undefined);
    },
    close: async () => {
      const report = await shutdown();
      if (server) await server.close().catch(() => undefined);
      return report;
    },
    closed,
    protocolVersion: () => (server as Server | undefined)?.getNegotiatedProtocolVersion(),
  };
}

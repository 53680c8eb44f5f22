import type { Server, ServerContext, Transport } from '@modelcontextprotocol/server';
import { ReaError, sealEvidence, throwIfAborted } from '@rea/evidence';
import type { Diagnostic, EvidenceRecord, JsonObject } from '@rea/evidence';
import { createProgressReporter, executeTool } from '@rea/provider-kit';
import type { ClientFeature, ToolContext } from '@rea/provider-kit';
import { attachHost } from './host.js';
import type { ServerHost, ServerIdentity, ToolAvailabilityEntry } from './host.js';
import type { LogForwarder } from './logger.js';
import { checkOutput, encodeFailure, encodeSuccess } from './respond.js';
import type { ToolResult } from './respond.js';
import { forwarding, runtimeOf } from './runtime.js';
import type { ReaServerOptions, Runtime } from './runtime.js';
import { ConnectionSession } from './session.js';

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

function clientFeaturesOf(server: Server): Set<ClientFeature> {
  const features = new Set<ClientFeature>(['progress']);
  const capabilities = server.getClientCapabilities() ?? {};
  if (capabilities.elicitation) features.add('elicitation');
  if (capabilities.sampling) features.add('sampling');
  if (capabilities.roots) features.add('roots');
  return features;
}

/**
 * Creates one REA MCP connection. The catalog is static (server tools, extra tools, every provider's
 * tools, sorted): `tools/list` always returns all of it and `notifications/tools/list_changed` is never
 * sent. Each connection has its own session: active target, provider binding, run, lineage and ledger.
 */
export function createReaServer(options: ReaServerOptions): ReaServer {
  return createConnection(runtimeOf(options), 'custom');
}

/** Internal: a connection over a known transport kind (reported by binary_session). */
export function createConnection(runtime: Runtime, transportKind: ServerIdentity['server']['transport']): ReaServer {
  const { options, config } = runtime;
  // The SDK loads on connect, so importing this package (e.g. for SERVER_TOOLS) stays cheaper.
  let server!: Server;
  const session = new ConnectionSession(() => runtime.loaded().registry, config);
  const calls = new WeakMap<ToolContext, AbortController>();
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

  const host: ServerHost = {
    session,
    get registry() {
      return runtime.loaded().registry;
    },
    config,
    get contracts() {
      return runtime.loaded().contracts;
    },
    advertised: runtime.advertised,
    identity: () => {
      const client = server.getClientVersion();
      return {
        package: { ...options.package },
        server: {
          name: '@rea/server',
          version: runtime.serverVersion(),
          path: options.serverPath === undefined ? (process.argv[1] ?? null) : options.serverPath,
          transport: transportKind,
        },
        sdk: { name: '@modelcontextprotocol/server', version: runtime.sdkVersion() },
        protocol: {
          negotiated_version: server.getNegotiatedProtocolVersion() ?? null,
          client: client ? { name: client.name, version: client.version } : null,
        },
      };
    },
    toolAvailability: () => {
      const features = clientFeaturesOf(server);
      const availabilityContext = { session: session.view(), platform: process.platform };
      return runtime.loaded().contracts.map((contract): ToolAvailabilityEntry => {
        let availability;
        try {
          availability = contract.availability(availabilityContext);
        } catch (error) {
          availability = {
            available: false as const,
            reason: `availability check failed: ${(error as Error).message}`,
            remediation: 'Report this defect.',
          };
        }
        const missing = contract.clientFeatures.required.filter((feature: ClientFeature) => !features.has(feature));
        const available = availability.available && missing.length === 0;
        return {
          name: contract.name,
          available,
          reason: availability.available
            ? missing.length > 0
              ? `the client did not negotiate: ${missing.join(', ')}`
              : null
            : availability.reason,
          remediation: availability.available
            ? missing.length > 0
              ? 'Use a client that supports the listed MCP features.'
              : null
            : availability.remediation,
          client_features: {
            required: [...contract.clientFeatures.required],
            optional: [...contract.clientFeatures.optional],
            missing,
          },
        };
      });
    },
    viewProvider: () => ({ id: 'rea-views', name: 'REA analysis views', version: runtime.serverVersion() }),
    currentCall: (context) => calls.get(context),
  };

  const retainDiagnostic =
    (operation: string) =>
    (diagnostic: Diagnostic): EvidenceRecord => {
      const record = sealEvidence({
        operation,
        subject: null,
        provider: host.viewProvider(),
        analysis_profile: null,
        parameters: {},
        normalized_result: diagnostic as unknown as JsonObject,
        raw_result: null,
        confidence: 'observed',
        limitations: [{ kind: 'failed-operation', message: 'The operation failed; this record holds its diagnostic.' }],
        coverage: { status: 'partial', reasons: ['the operation failed'] },
        locations: [],
        evidence_links: [],
      });
      session.ledger.retain(record);
      return record;
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

    server.setRequestHandler('tools/call', (request, ctx: ServerContext) => {
      const name = request.params.name;
      const controller = new AbortController();
      const upstream = ctx.mcpReq.signal;
      const onAbort = (): void => controller.abort(upstream.reason);
      if (upstream.aborted) onAbort();
      else upstream.addEventListener('abort', onAbort, { once: true });
      const token = request.params._meta?.progressToken;
      // Without a token nothing is sent; after cancellation the token is dead, so nothing is sent either.
      // Notifications of this call (progress, log entries) travel with the request, and every one is
      // delivered before the result goes out: the terminal progress update precedes the result.
      let delivered: Promise<unknown> = Promise.resolve();
      const outbound = (sending: Promise<unknown>): Promise<void> => {
        const settled = sending.then(
          () => undefined,
          () => undefined,
        );
        delivered = Promise.all([delivered, settled]);
        return settled;
      };
      const progress = createProgressReporter({
        phase: name,
        send: (update) => {
          if (token === undefined || controller.signal.aborted) return;
          return outbound(
            ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...update } }),
          );
        },
      });
      const callLogger = forwarding(
        runtime.localLogger,
        new Set<LogForwarder>([
          (level, message, data) => {
            if (!controller.signal.aborted)
              void outbound(ctx.mcpReq.log(LOG_LEVELS[level], { message, ...(data ?? {}) }, 'rea'));
          },
        ]),
      );
      const run = async (): Promise<ToolResult> => {
        try {
          // The first call loads the composition (once); tools/list and initialize never need it.
          const contract = (await runtime.catalog()).byName.get(name);
          if (!contract) {
            throw new ReaError('not_found', `No tool is named ${name}.`, {
              details: { reason: 'unknown-tool', tool: name },
              remediation: 'Call tools/list for the catalog.',
            });
          }
          progress.report('started');
          const context = attachHost(
            {
              session: session.view(),
              platform: process.platform,
              signal: controller.signal,
              progress,
              logger: callLogger,
              ledger: session.ledger,
              clientFeatures: clientFeaturesOf(server),
            },
            host,
          );
          calls.set(context, controller);
          const outcome = await executeTool(contract, request.params.arguments ?? {}, context);
          checkOutput(contract, outcome.kind === 'evidence' ? outcome.record : outcome.value);
          throwIfAborted(controller.signal, 'publication');
          // Recorded only now: a cancelled or invalid call leaves the ledger untouched.
          if (outcome.kind === 'evidence') session.ledger.retain(outcome.record);
          const result = encodeSuccess(name, outcome, config.mcpMaxResponseBytes);
          progress.finish('completed', 'done');
          await delivered;
          return result;
        } catch (error) {
          // Cancelled by the client: its request is gone, so nothing is answered. Cancelled by the server
          // (close_binary draining owned work, connection end): answered as `cancelled`.
          if (upstream.aborted) throw error;
          const result = encodeFailure(error, name, config.mcpMaxResponseBytes, retainDiagnostic(name));
          progress.finish('failed', 'done');
          await delivered;
          return result;
        } finally {
          upstream.removeEventListener('abort', onAbort);
        }
      };
      const done = run();
      session.track(controller, done);
      return done as never;
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
      const cleared = await session.dispose();
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

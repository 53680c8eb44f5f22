/**
 * @rea/server/calls — every export of this module is public API.
 *
 * The call path of the server: everything a `tools/call` needs — the composition and the server's own
 * tool contracts, each connection's session and ledger, execution, progress, output checks and response
 * budgets. The server loads it on the first tool call, so that start-up, `initialize` and `tools/list`
 * load none of it. It is an entry of its own so that a host which bundles the server's start-up path
 * (transports, SDK) still loads this part, and through it @rea/evidence and @rea/provider-kit, from the
 * installed packages that its providers share. Hosts do not call it directly.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CallToolRequest, Server, ServerContext } from '@modelcontextprotocol/server';
import { ReaError, isReaError, monotonicMs, normalizeError, sealEvidence, throwIfAborted } from '@rea/evidence';
import type { Diagnostic, EvidenceRecord, JsonObject, SessionLedger } from '@rea/evidence';
import { createProgressReporter, createProviderRegistry, executeTool } from '@rea/provider-kit';
import type { AnyToolContract, Availability, ClientFeature, ProviderRegistry, ToolContext } from '@rea/provider-kit';
import type { AdvertisedCatalog, SchemaProfile } from '@rea/schema';
import { advertiseCatalog } from './advertise.js';
import { availabilityEntry } from './availability.js';
import { STALE_MESSAGE, STALE_REMEDIATION, staleness } from './catalogCheck.js';
import { readEvidence } from './evidenceRead.js';
import { attachHost } from './host.js';
import type { ServerHost, ServerIdentity } from './host.js';
import { MCP_LEVEL_OF } from './logGate.js';
import { TRANSITIONS } from './ownedCalls.js';
import type { LogGate } from './logGate.js';
import { forwarding } from './logger.js';
import type { LogForwarder } from './logger.js';
import { checkOutput, encodeFailure, encodeSuccess, forProtocol } from './respond.js';
import type { ToolResult } from './respond.js';
import { createCatalog } from './catalog.js';
import type { Catalog, DeferredTools, Runtime } from './runtime.js';
import { ConnectionSession } from './session.js';
import type { DisposeReport } from './session.js';

/** The tool calls of one connection. */
export interface ConnectionCalls {
  /** Answers one `tools/call` request. */
  call(request: CallToolRequest, ctx: ServerContext): Promise<ToolResult>;
  /**
   * Ends the connection's session: cancels the calls in flight, waits (bounded) for their cleanup,
   * closes the provider and clears the ledger; resolves with what was cleared and what remains.
   */
  dispose(): Promise<DisposeReport>;
  /** The connection's Evidence ledger (listed by resources/list). */
  readonly ledger: SessionLedger;
  /** Answers resources/read of a retained record (see ./evidenceRead.js). */
  readEvidence(params: unknown): Promise<Record<string, unknown>>;
}

/** What ./runtime.js and ./server.js take from this module once it has loaded. */
export interface CallPath {
  /** Loads the composition and builds the sorted catalog (once per runtime, memoized by the runtime). */
  loadCatalog(runtime: Runtime): Promise<Catalog>;
  /** Projects `catalog` in `profile` with @rea/schema (when no precomputed catalog was given). */
  advertise(catalog: Catalog, profile: SchemaProfile): Promise<AdvertisedCatalog>;
  /** The call handling of one connection. */
  connection(
    runtime: Runtime,
    server: Server,
    transportKind: ServerIdentity['server']['transport'],
    gate: LogGate,
  ): ConnectionCalls;
}

function readVersion(packageJson: string): string {
  try {
    return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

let serverVersion: string | null = null;
let sdkVersion: string | null = null;

/**
 * This package's manifest, found by name (a self-reference): the same whether this module runs from
 * the installed package or from inside a bundle of an application that depends on it.
 */
function serverManifest(): string {
  return createRequire(import.meta.url).resolve('@rea/server/package.json');
}

/** This package's version. */
function serverVersionOf(): string {
  if (serverVersion === null) {
    try {
      serverVersion = readVersion(serverManifest());
    } catch {
      serverVersion = 'unknown';
    }
  }
  return serverVersion;
}

/** The installed MCP SDK's version (the one this package depends on). */
function sdkVersionOf(): string {
  if (sdkVersion === null) {
    try {
      const entry = createRequire(serverManifest()).resolve('@modelcontextprotocol/server');
      sdkVersion = readVersion(join(dirname(entry), '..', 'package.json'));
    } catch {
      sdkVersion = 'unknown';
    }
  }
  return sdkVersion;
}

/** The server's tools plus the composition's, sorted (the server's tool contracts load here, once). */
async function catalogOf(
  runtime: Runtime,
  registry: ProviderRegistry,
  extra: readonly AnyToolContract[],
  deferred: readonly DeferredTools[] = [],
): Promise<Catalog> {
  const { SERVER_TOOLS } = await import('./tools/index.js');
  const contracts = [...SERVER_TOOLS, ...extra, ...registry.tools()];
  return createCatalog(registry, contracts, deferred, runtime.logger);
}

async function loadCatalog(runtime: Runtime): Promise<Catalog> {
  const { options, logger, config } = runtime;
  if (options.providers) return catalogOf(runtime, createProviderRegistry(options.providers), options.tools ?? []);
  let catalog: Catalog;
  try {
    const composition = await options.load!();
    const registry = createProviderRegistry(composition.providers);
    catalog = await catalogOf(runtime, registry, composition.tools ?? [], composition.deferred);
  } catch (error) {
    logger.error('the tool composition failed to load', { message: (error as Error).message });
    throw new ReaError('internal', `The tool composition failed to load: ${(error as Error).message}`, {
      details: { reason: 'composition-load-failed' },
      remediation: 'Check the installation (reinstall the package), then restart the server.',
    });
  }
  const precomputed = options.advertised;
  const stale = precomputed ? staleness(precomputed, catalog.names, config.mcpInputSchemaProfile) : null;
  if (stale) {
    logger.error(STALE_MESSAGE, stale);
    throw new ReaError('internal', STALE_MESSAGE, { details: stale, remediation: STALE_REMEDIATION });
  }
  return catalog;
}

/** The owned resources a `cleanup_incomplete` error lists (`details.remaining`), or one of unknown kind. */
function remainingOf(error: ReaError): Array<{ kind: string; identifiers: string[] }> {
  const listed = (error.details as { remaining?: unknown } | undefined)?.remaining;
  if (!Array.isArray(listed)) return [{ kind: 'unknown', identifiers: [error.message] }];
  return listed.map((entry: { kind?: unknown; identifiers?: unknown }) => ({
    kind: typeof entry?.kind === 'string' ? entry.kind : 'unknown',
    identifiers: Array.isArray(entry?.identifiers) ? entry.identifiers.map(String) : [],
  }));
}

/** An open_binary call in flight: `ended` resolves with its error, or null once it has opened. */
interface PendingOpen {
  ended: Promise<unknown>;
}

/** Whether `contract` needs an open target: it is unavailable while none is open (the native tools). */
function needsTarget(contract: AnyToolContract): boolean {
  try {
    const none = { target: null, binding: null, run_id: null };
    return !contract.availability({ session: none, platform: process.platform }).available;
  } catch {
    return false;
  }
}

/**
 * Waits for the open_binary calls a call was sent after (or for `signal`, which aborts the wait with
 * `cancelled`); when the last of them failed, fails with its error: the call was meant for the target
 * that open would have opened.
 */
async function waitForOpens(opens: readonly PendingOpen[], signal: AbortSignal): Promise<void> {
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () =>
      reject(
        isReaError(signal.reason)
          ? signal.reason
          : new ReaError('cancelled', 'Cancelled while waiting for open_binary.', {
              details: { phase: 'waiting for open_binary' },
            }),
      );
  });
  aborted.catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    throwIfAborted(signal, 'waiting for open_binary');
    const failures = await Promise.race([Promise.all(opens.map((open) => open.ended)), aborted]);
    const last = failures[failures.length - 1];
    if (last !== null && last !== undefined) throw last;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function clientFeaturesOf(server: Server): Set<ClientFeature> {
  const features = new Set<ClientFeature>(['progress']);
  const capabilities = server.getClientCapabilities() ?? {};
  if (capabilities.elicitation) features.add('elicitation');
  if (capabilities.sampling) features.add('sampling');
  if (capabilities.roots) features.add('roots');
  return features;
}

function connection(
  runtime: Runtime,
  server: Server,
  transportKind: ServerIdentity['server']['transport'],
  gate: LogGate,
): ConnectionCalls {
  const { options, config } = runtime;
  const session = new ConnectionSession(() => runtime.loaded().registry, config);
  const calls = new WeakMap<ToolContext, AbortController>();
  /** Calls that arrived on the connection, and close_binary calls that have not answered yet. */
  let arrivals = 0;
  let closesPending = 0;
  /** open_binary calls that have not answered yet, in arrival order, each with how it ended. */
  const opensPending: PendingOpen[] = [];

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
          version: serverVersionOf(),
          path: options.serverPath === undefined ? (process.argv[1] ?? null) : options.serverPath,
          transport: transportKind,
        },
        sdk: { name: '@modelcontextprotocol/server', version: sdkVersionOf() },
        protocol: {
          negotiated_version: server.getNegotiatedProtocolVersion() ?? null,
          client: client ? { name: client.name, version: client.version } : null,
        },
      };
    },
    toolAvailability: () => {
      const features = clientFeaturesOf(server);
      const availabilityContext = { session: session.view(), platform: process.platform };
      const catalog = runtime.loaded();
      return catalog.names.map((name) => {
        // A deferred tool not loaded yet answers from its facts and the availability check it declares.
        const deferred = catalog.deferred(name);
        const tool = catalog.contract(name) ?? { ...deferred!.facts, availability: deferred!.availability };
        let availability: Availability;
        try {
          availability = tool.availability ? tool.availability(availabilityContext) : { available: true };
        } catch (error) {
          availability = {
            available: false as const,
            reason: `availability check failed: ${(error as Error).message}`,
            remediation: 'Report this defect.',
          };
        }
        return availabilityEntry(tool, availability, features);
      });
    },
    viewProvider: () => ({ id: 'rea-views', name: 'REA analysis views', version: serverVersionOf() }),
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

  const call = (request: CallToolRequest, ctx: ServerContext): Promise<ToolResult> => {
    const name = request.params.name;
    const controller = new AbortController();
    // A call that arrives while a close_binary is pending answers on the session the close leaves: its
    // record must outlive that close (see ConnectionSession.outlive), which drains it if it is running.
    const order = ++arrivals;
    session.arrived(controller, order);
    const late = closesPending > 0 && !TRANSITIONS.has(name);
    // The opens this call was sent after: a call that needs the open target waits for them (see run).
    const opensBefore = TRANSITIONS.has(name) ? [] : [...opensPending];
    let openEnded: (failure: unknown) => void = () => undefined;
    if (name === 'open_binary') {
      const pending: PendingOpen = { ended: new Promise((resolve) => (openEnded = resolve)) };
      opensPending.push(pending);
      void pending.ended.then(() => opensPending.splice(opensPending.indexOf(pending), 1));
    }
    const upstream = ctx.mcpReq.signal;
    // When the client's notifications/cancelled arrived: the server's log says how long the call took to
    // stop. The SDK also aborts every request it was handling when the connection closes: no client's
    // cancel, and the connection's own close line reports it.
    let cancelledAt = 0;
    let byClient = false;
    const onAbort = (): void => {
      byClient = (upstream.reason as { code?: unknown } | undefined)?.code !== 'CONNECTION_CLOSED';
      cancelledAt = monotonicMs();
      controller.abort(upstream.reason);
    };
    const logCancel = (outcome: { code: string | null; phase: string | null; completed: boolean }): void => {
      if (!byClient) return;
      runtime.localLogger.info('call cancelled by the client', {
        tool: name,
        request_id: ctx.mcpReq.id,
        ...outcome,
        stopped_after_ms: Math.round(monotonicMs() - cancelledAt),
      });
    };
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
    // Log entries of this call go to the client only at or above the level it chose (none before it
    // chooses one); the phases of the call are logged like the tool's own entries.
    const toClient: LogForwarder = (level, message, data) => {
      const mcpLevel = MCP_LEVEL_OF[level];
      if (controller.signal.aborted || !gate.allows(mcpLevel)) return;
      void outbound(
        ctx.mcpReq.notify({
          method: 'notifications/message',
          params: { level: mcpLevel, logger: 'rea', data: { tool: name, message, ...(data ?? {}) } },
        }),
      );
    };
    const progress = createProgressReporter({
      phase: name,
      send: (update) => {
        toClient('debug', update.message, { progress: update.progress });
        if (token === undefined || controller.signal.aborted) return;
        return outbound(
          ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...update } }),
        );
      },
    });
    const callLogger = forwarding(runtime.localLogger, new Set<LogForwarder>([toClient]));
    const run = async (): Promise<ToolResult> => {
      try {
        // The first call loads the composition (once); tools/list and initialize never need it. A tool
        // of a deferred provider loads that provider (once) with its first call.
        const contract = await (await runtime.catalog()).resolve(name);
        if (!contract) {
          throw new ReaError('not_found', `No tool is named ${name}.`, {
            details: { reason: 'unknown-tool', tool: name },
            remediation: 'Call tools/list for the catalog.',
          });
        }
        toClient('info', 'started');
        progress.report('started');
        if (opensBefore.length > 0 && needsTarget(contract)) {
          progress.report('waiting for open_binary to finish', 'waiting');
          await waitForOpens(opensBefore, controller.signal);
        }
        const context = attachHost(
          {
            session: session.view(),
            platform: process.platform,
            signal: controller.signal,
            progress,
            logger: callLogger,
            ledger: session.ledger,
            clientFeatures: clientFeaturesOf(server),
            supervisor: session.callSupervisor(name, runtime.loaded().providerOf(name)),
            sessionResources: session.resources,
          },
          host,
        );
        calls.set(context, controller);
        const outcome = await executeTool(contract, request.params.arguments ?? {}, context);
        openEnded(null);
        await checkOutput(contract, outcome.kind === 'evidence' ? outcome.record : outcome.value, controller.signal);
        // Measured and written before the record is retained, with turns of the event loop: a cancel
        // meanwhile leaves the ledger untouched, and other requests are served meanwhile.
        const encoded = await encodeSuccess(name, outcome, config.mcpMaxResponseBytes, controller.signal);
        throwIfAborted(controller.signal, 'publication');
        // Recorded only now: a cancelled or invalid call leaves the ledger untouched.
        if (outcome.kind === 'evidence') {
          if (late) session.outlive(outcome.record.evidence_id, order);
          await session.ledger.retainAsync(outcome.record, controller.signal);
        }
        // Too large for one response: answered by reference to the record just retained.
        if (!encoded.fits) throw encoded.refusal;
        const result = forProtocol(encoded.result, server.getNegotiatedProtocolVersion());
        progress.finish('completed', 'done');
        toClient(
          'info',
          'completed',
          outcome.kind === 'evidence' ? { evidence_id: outcome.record.evidence_id } : undefined,
        );
        await delivered;
        // Cancelled once the work was done and its record kept: the client drops the result.
        if (upstream.aborted) logCancel({ code: null, phase: null, completed: true });
        return result;
      } catch (error) {
        openEnded(error);
        // Cancelled by the client: its request is gone, so nothing is answered. Cancelled by the server
        // (close_binary draining owned work, connection end): answered as `cancelled`.
        if (upstream.aborted) {
          const reason = normalizeError(error);
          const phase = reason.details['phase'];
          logCancel({ code: reason.code, phase: typeof phase === 'string' ? phase : null, completed: false });
          throw error;
        }
        if (isReaError(error) && error.code === 'cleanup_incomplete') session.noteIncomplete(remainingOf(error));
        const result = encodeFailure(error, name, config.mcpMaxResponseBytes, retainDiagnostic(name));
        progress.finish('failed', 'done');
        toClient('warn', 'failed', { code: normalizeError(error).code });
        await delivered;
        return result;
      } finally {
        openEnded(null);
        upstream.removeEventListener('abort', onAbort);
      }
    };
    const done = run();
    session.track({ name, controller, done });
    if (name === 'close_binary') {
      closesPending += 1;
      const settled = (): void => void (closesPending -= 1);
      void done.then(settled, settled);
    }
    return done;
  };

  return {
    call,
    dispose: () => session.dispose(),
    ledger: session.ledger,
    readEvidence: (params) => readEvidence(session.ledger, params, config.mcpMaxResponseBytes),
  };
}

/** The call path, as ./runtime.js loads it. */
export const callPath: CallPath = {
  loadCatalog,
  advertise: async (catalog, profile) => advertiseCatalog(await catalog.resolveAll(), profile),
  connection,
};

import { ReaError } from '@rea/evidence';
import type { SessionLedger } from '@rea/evidence';
import type { AnyToolContract, ProviderRegistry, ReaConfig, ToolContext, ToolEffects } from '@rea/provider-kit';
import type { AdvertisedCatalog } from '@rea/schema';
import type { ConnectionSession } from './session.js';

/** Identity facts of the running server and the negotiated connection. */
export interface ServerIdentity {
  package: { name: string; version: string };
  server: { name: string; version: string; path: string | null; transport: 'stdio' | 'http' | 'custom' };
  sdk: { name: string; version: string };
  protocol: { negotiated_version: string | null; client: { name: string; version: string } | null };
}

/** One tool's availability for this connection. */
export interface ToolAvailabilityEntry {
  name: string;
  available: boolean;
  reason: string | null;
  remediation: string | null;
  client_features: { required: string[]; optional: string[]; missing: string[] };
  /** The tool's declared effects, each flag separately (the MCP annotations are derived from these). */
  effects: ToolEffects;
}

/** What the server's own tools reach beyond the ordinary tool context. */
export interface ServerHost {
  session: ConnectionSession;
  registry: ProviderRegistry;
  config: ReaConfig;
  /** The tool contracts loaded so far (a deferred provider's tools join when it loads). */
  contracts: readonly AnyToolContract[];
  advertised(): Promise<AdvertisedCatalog>;
  identity(): ServerIdentity;
  toolAvailability(): ToolAvailabilityEntry[];
  /** Provider identity of records the server derives itself (views). */
  viewProvider(): { id: string; name: string; version: string };
  /** The abort controller of the call that owns `context`. */
  currentCall(context: ToolContext): AbortController | undefined;
}

const hosts = new WeakMap<object, ServerHost>();

/** Associates `host` with a tool context built by the server. */
export function attachHost(context: ToolContext, host: ServerHost): ToolContext {
  hosts.set(context, host);
  return context;
}

/** The server host of a context, or undefined when the tool runs outside the MCP server. */
export function attachedHost(context: ToolContext): ServerHost | undefined {
  return hosts.get(context);
}

/**
 * The server host of a context; `capability_unavailable` when the tool runs outside the MCP server.
 * The remediation names the command-line equivalent: `--target` opens a target for one command.
 */
export function hostOf(context: ToolContext): ServerHost {
  const host = hosts.get(context);
  if (!host) {
    throw new ReaError('capability_unavailable', 'This tool needs the MCP server session.', {
      details: { capability: 'server-session' },
      remediation:
        'Call it through the REA MCP server (rea mcp). From the command line, give the analysis command ' +
        '--target <path> (and --provider <id>) instead: it opens the target for that command and closes it after.',
    });
  }
  return host;
}

function isSessionLedger(value: unknown): value is SessionLedger {
  const ledger = value as Partial<SessionLedger> | null;
  return (
    typeof ledger === 'object' &&
    ledger !== null &&
    ['retain', 'get', 'resolve', 'list', 'summaries', 'merge', 'clear'].every(
      (method) => typeof (ledger as Record<string, unknown>)[method] === 'function',
    )
  );
}

/**
 * The Evidence ledger a tool works on: the MCP connection's, or outside the server (a CLI invocation)
 * the complete session ledger the host put in `context.ledger`. `capability_unavailable` when neither
 * exists.
 */
export function ledgerOf(context: ToolContext): SessionLedger {
  const host = hosts.get(context);
  if (host) return host.session.ledger;
  if (isSessionLedger(context.ledger)) return context.ledger;
  throw new ReaError('capability_unavailable', 'This tool needs a session Evidence ledger.', {
    details: { capability: 'session-ledger' },
    remediation: 'Call it through the REA MCP server, or from a host that keeps a session ledger.',
  });
}

import type { EvidenceRecord, JsonObject, RetainedEvidenceRef, AnalysisProfile, ProviderIdentity } from '@rea/evidence';
import type { Provider } from './provider.js';
import type { AnyToolContract } from './tool.js';
import type { ProcessSupervisor } from './supervisor/supervisor.js';
import type { SessionResources } from './supervisor/session.js';

/** Negotiated MCP client capabilities a tool can require or use. */
export type ClientFeature = 'progress' | 'elicitation' | 'sampling' | 'roots';

/** Reports progress observations. Implementations rate-bound and number them; see createProgressReporter. */
export interface ProgressSink {
  /**
   * One status observation: what was observed (never a fabricated percentage), optionally naming the
   * phase it belongs to.
   */
  report(message: string, phase?: string): void;
}

/** Structured logger; output goes to stderr and MCP logging, never stdout. */
export interface Logger {
  debug(message: string, data?: JsonObject): void;
  info(message: string, data?: JsonObject): void;
  warn(message: string, data?: JsonObject): void;
  error(message: string, data?: JsonObject): void;
}

/**
 * The part of the session ledger tools use: resolving references, reading retained records, and
 * retaining a parent record (a complete result a tool answers with a summary of; see `retainAndSummarize`).
 */
export interface LedgerAccess {
  /** The record for a retained reference; `not_found` (`details.reason: "missing"`) when absent. */
  resolve(ref: RetainedEvidenceRef): EvidenceRecord;
  /** The retained record with this id, if any. */
  get(evidenceId: string): EvidenceRecord | undefined;
  /**
   * Verifies and retains a sealed record, returning the retained record (an identical record already
   * retained is returned as is). `resource_constraint` when the ledger's bounds would be exceeded.
   */
  retain(record: EvidenceRecord): EvidenceRecord;
  /**
   * {@link LedgerAccess.retain} without holding the event loop (the record is verified a slice at a
   * time); `cancelled` when `signal` is aborted first, leaving nothing retained. A session ledger has it;
   * without it {@link LedgerAccess.retain} is used.
   */
  retainAsync?(record: EvidenceRecord, signal?: AbortSignal): Promise<EvidenceRecord>;
}

/** The active target of a session (`open_binary`). `path` is machine-local and never part of an id. */
export interface ActiveTarget {
  path: string;
  format: string;
  sha256: string;
  size: number;
}

/** A provider of a port as the host's registry declares it (id, name, capabilities). */
export interface PortPeer {
  id: string;
  name: string;
  capabilities: readonly string[];
}

/** The immutable binding of the active target to one deep-analysis provider. */
export interface ProviderBinding {
  provider: ProviderIdentity;
  /** The port the provider implements (`DeepProvider.port`); tools check it before using the session. */
  port: string;
  selection_source: 'argument' | 'environment' | 'auto';
  analysis_profile: AnalysisProfile;
  /**
   * The provider's open analysis session, of the port's session type: narrow it with `portSession`
   * (and the port's own guard where the binding may come from outside the host).
   */
  session: unknown;
  /**
   * Every provider of the same port in the host's registry, bound one included, with its declared
   * capabilities: what remedies name as alternatives (`alternativesFor`). Absent where the host has
   * no registry.
   */
  peers?: readonly PortPeer[];
}

/** What a tool sees of its session. */
export interface SessionView {
  target: ActiveTarget | null;
  binding: ProviderBinding | null;
  run_id: string | null;
}

/** Input to a tool's availability check. Never starts an engine. */
export interface AvailabilityContext {
  session: SessionView;
  platform: NodeJS.Platform;
}

/** Everything a running tool receives. */
export interface ToolContext extends AvailabilityContext {
  /** The request's cancellation signal; pass it to every provider call and check it between phases. */
  signal: AbortSignal;
  progress: ProgressSink;
  logger: Logger;
  /** The session ledger, or null where the host keeps none. */
  ledger: LedgerAccess | null;
  /** Client features negotiated for this connection. */
  clientFeatures: ReadonlySet<ClientFeature>;
  /**
   * This call's owned-process supervisor, made by the host for this one call and closed by
   * `executeTool` when the call ends, fails or is cancelled. Start every process, temp directory,
   * socket and mount of the call through it; the host reports its lineage (`binary_session`). Deep
   * providers keep using the session-scoped supervisor `open` receives.
   */
  supervisor: ProcessSupervisor;
  /**
   * What the session keeps for later calls (e.g. a browser they reuse), ended with the session. Absent
   * where the host keeps no session beyond the call (a CLI invocation, `executeTool` in a test): keep
   * the resource in `supervisor` for the call instead.
   */
  sessionResources?: SessionResources;
  /**
   * What a host outside the MCP server (a CLI invocation) tells session tools such as `binary_session`
   * about itself. Absent where the MCP server attaches its own host.
   */
  invocationHost?: InvocationHostFacts;
}

/** The identity and catalog of a host that runs tools without an MCP connection (a CLI invocation). */
export interface InvocationHostFacts {
  /** The installed package the host speaks for. */
  package: { name: string; version: string };
  /** Path of the running entry script, or null when unknown. */
  entryPath: string | null;
  /** The host's complete tool catalog. */
  tools(): Promise<readonly AnyToolContract[]>;
  /** Every provider of the host; creating one starts nothing. */
  providers(): Promise<readonly Provider[]>;
  /** Digest, profile, size and reduced tools of the catalog as the MCP server would advertise it. */
  catalog(): Promise<{ digest: string; profile: 'full' | 'compact'; tool_count: number; reduced: string[] }>;
}

import type { EvidenceRecord, JsonObject, RetainedEvidenceRef, AnalysisProfile, ProviderIdentity } from '@rea/evidence';
import type { Provider } from './provider.js';
import type { AnyToolContract } from './tool.js';

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

/** The part of the session ledger tools use: resolving references and reading retained records. */
export interface LedgerAccess {
  /** The record for a retained reference; `not_found` (`details.reason: "missing"`) when absent. */
  resolve(ref: RetainedEvidenceRef): EvidenceRecord;
  /** The retained record with this id, if any. */
  get(evidenceId: string): EvidenceRecord | undefined;
}

/** The active target of a session (`open_binary`). `path` is machine-local and never part of an id. */
export interface ActiveTarget {
  path: string;
  format: string;
  sha256: string;
  size: number;
}

/** The immutable binding of the active target to one deep-analysis provider. */
export interface ProviderBinding {
  provider: ProviderIdentity;
  selection_source: 'argument' | 'environment' | 'auto';
  analysis_profile: AnalysisProfile;
  /** The provider's open analysis session; tools narrow it with the provider's own guard. */
  session: unknown;
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

import type { EvidenceRecord, JsonObject, RetainedEvidenceRef, AnalysisProfile, ProviderIdentity } from '@rea/evidence';

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
}

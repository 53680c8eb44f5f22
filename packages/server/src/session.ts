import { randomUUID } from 'node:crypto';
import { ReaError, normalizeError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import type { ActiveTarget, ProgressSink, ProviderBinding, SessionView } from '@rea/provider-kit';
import { createSessionLedger } from './ledger.js';
import type { SessionLedger } from './ledger.js';
import { selectProvider } from './providers.js';
import type { DeepSession, LineageSnapshot, Provider, SelectionSource, SessionSupervisor } from './providers.js';

/** The run allocated for a target transition, before any provider starts. */
export interface AnalysisRun {
  run_id: string;
  started_at: string;
}

/** Ledger bounds of one connection. */
export const LEDGER_LIMITS = { maxRecords: 10_000, maxBytes: 1024 * 1024 * 1024 };

interface Bound {
  provider: Provider;
  deep: DeepSession;
  binding: ProviderBinding;
}

/** What `close_binary` did. */
export interface CloseReport {
  closed_target: ActiveTarget | null;
  closed_provider: string | null;
  cleared_records: number;
  drained_calls: number;
}

function createSupervisor(): SessionSupervisor & { record(snapshot: LineageSnapshot): void } {
  const observed: LineageSnapshot[] = [];
  return {
    snapshots: () => [...observed],
    record: (snapshot) => observed.push(snapshot),
  };
}

/**
 * One connection's session: at most one active target bound to one immutable provider, the run id,
 * the process lineage, the Evidence ledger, and the tool calls in flight (owned work).
 */
export class ConnectionSession {
  readonly ledger: SessionLedger = createSessionLedger(LEDGER_LIMITS);
  target: ActiveTarget | null = null;
  run: AnalysisRun | null = null;
  private bound: Bound | null = null;
  private supervisor: (SessionSupervisor & { record(snapshot: LineageSnapshot): void }) | null = null;
  private readonly inflight = new Set<{ controller: AbortController; done: Promise<unknown> }>();

  constructor(
    private readonly providers: readonly Provider[],
    private readonly config: unknown,
  ) {}

  /** What tools see of this session. */
  view(): SessionView {
    return { target: this.target, binding: this.bound?.binding ?? null, run_id: this.run?.run_id ?? null };
  }

  get binding(): ProviderBinding | null {
    return this.bound?.binding ?? null;
  }

  /** `not_observed` until a provider starts a process, then the snapshots the supervisor holds. */
  lineage(): { status: 'not_observed' } | { status: 'snapshots'; snapshots: LineageSnapshot[] } {
    const snapshots = this.supervisor?.snapshots() ?? [];
    return snapshots.length === 0 ? { status: 'not_observed' } : { status: 'snapshots', snapshots };
  }

  /** Tracks a tool call as owned work until `done` settles; `close_binary` drains these. */
  track(controller: AbortController, done: Promise<unknown>): void {
    const entry = { controller, done };
    this.inflight.add(entry);
    void done.finally(() => this.inflight.delete(entry)).catch(() => undefined);
  }

  /**
   * Opens `target` with the chosen provider. The same target with the same provider reuses the open
   * session; otherwise the previous provider is closed (the ledger is kept), a run id is allocated,
   * and only then is the new provider selected and started.
   */
  async open(
    target: ActiveTarget,
    choice: string,
    source: SelectionSource,
    signal: AbortSignal,
    progress: ProgressSink,
  ): Promise<{ reused: boolean }> {
    const current = this.bound;
    if (
      current &&
      this.target?.path === target.path &&
      this.target.sha256 === target.sha256 &&
      (choice === 'auto' || choice === current.provider.id)
    ) {
      return { reused: true };
    }
    if (this.target || current) await this.releaseProvider(signal);
    const run: AnalysisRun = { run_id: `run_${randomUUID()}`, started_at: new Date().toISOString() };
    this.run = run;
    this.target = null;
    progress.report(`selecting a provider (run ${run.run_id})`);
    const provider = await selectProvider(this.providers, choice, target);
    if (!provider.open) {
      throw new ReaError('capability_unavailable', `Provider ${provider.id} cannot open targets.`, {
        details: { capability: 'open', provider_id: provider.id },
      });
    }
    const supervisor = createSupervisor();
    this.supervisor = supervisor;
    progress.report(`starting ${provider.id}`);
    const deep = await provider.open(target, { signal, supervisor, runId: run.run_id, progress, config: this.config });
    if (signal.aborted) {
      await deep.close(new AbortController().signal).catch(() => undefined);
      throw new ReaError('cancelled', 'open_binary was cancelled.', { details: { phase: 'provider-start' } });
    }
    this.target = target;
    this.bound = {
      provider,
      deep,
      binding: {
        provider: { id: provider.id, name: provider.name, version: deep.version },
        selection_source: source,
        analysis_profile: deep.analysis_profile,
        session: deep.session,
      },
    };
    return { reused: false };
  }

  private async releaseProvider(signal: AbortSignal): Promise<void> {
    const bound = this.bound;
    this.bound = null;
    this.target = null;
    if (bound) await bound.deep.close(signal);
  }

  /**
   * Drains owned work (waits briefly, then aborts what remains), closes the provider, clears the
   * ledger and the target — also when no target is active. Remaining owned resources are
   * `cleanup_incomplete` with their kinds; the session is cleared either way.
   */
  async close(signal: AbortSignal, self?: AbortController): Promise<CloseReport> {
    const others = [...this.inflight].filter((entry) => entry.controller !== self);
    const drain = Promise.allSettled(others.map((entry) => entry.done));
    const timer = new Promise((resolve) => setTimeout(resolve, 2000).unref());
    await Promise.race([drain, timer]);
    for (const entry of others) entry.controller.abort(new ReaError('cancelled', 'The session was closed.'));
    await Promise.race([drain, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    const report: CloseReport = {
      closed_target: this.target,
      closed_provider: this.bound?.provider.id ?? null,
      cleared_records: 0,
      drained_calls: others.length,
    };
    let failure: ReaError | null = null;
    try {
      await this.releaseProvider(signal);
    } catch (error) {
      failure = normalizeError(error, 'close_binary');
    }
    report.cleared_records = this.ledger.clear();
    this.run = null;
    this.supervisor = null;
    if (failure) {
      if (failure.code === 'cleanup_incomplete') throw failure;
      const details: JsonObject = {
        remaining: [{ kind: 'provider-session', reason: failure.message }],
        cause: failure.code,
      };
      throw new ReaError('cleanup_incomplete', `The provider did not close cleanly: ${failure.message}`, {
        operation: 'close_binary',
        details,
      });
    }
    return report;
  }

  /** Closes everything at the end of the connection (ledger dropped with it). */
  async dispose(): Promise<void> {
    for (const entry of this.inflight) entry.controller.abort(new ReaError('cancelled', 'The connection closed.'));
    await this.releaseProvider(new AbortController().signal).catch(() => undefined);
    this.ledger.clear();
  }
}

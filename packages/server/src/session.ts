import { randomUUID } from 'node:crypto';
import { ReaError, createSessionLedger, normalizeError } from '@rea/evidence';
import type { JsonObject, SessionLedger } from '@rea/evidence';
import {
  NATIVE_PORT,
  createCallSupervisor,
  createProcessSupervisor,
  createProviderBinding,
  probeProviders,
  selectProvider,
} from '@rea/provider-kit';
import type {
  ActiveTarget,
  ChoiceSource,
  DeepProvider,
  DeepSession,
  ProcessSupervisor,
  ProgressSink,
  ProviderBinding,
  ProviderChoice,
  ProviderRegistry,
  ReaConfig,
  SessionView,
} from '@rea/provider-kit';
import type { CallLineageSnapshot, LineageSnapshot } from './providers.js';

/** The run allocated for a target transition, before any provider starts. */
export interface AnalysisRun {
  run_id: string;
  started_at: string;
}

/** Ledger bounds of one connection. */
export const LEDGER_LIMITS = { maxRecords: 10_000, maxBytes: 512 * 1024 * 1024 };

interface Bound {
  provider: DeepProvider;
  deep: DeepSession;
  binding: ProviderBinding;
  supervisor: ProcessSupervisor;
  runId: string;
}

/** What `close_binary` did. */
export interface CloseReport {
  closed_target: ActiveTarget | null;
  closed_provider: string | null;
  cleared_records: number;
  drained_calls: number;
}

/** Where the provider choice of an `open_binary` came from. */
export type ChoiceOrigin = ChoiceSource | 'default';

/**
 * One connection's session: at most one active target bound to one immutable provider, the run id,
 * the process lineage, the Evidence ledger, and the tool calls in flight (owned work).
 */
export class ConnectionSession {
  readonly ledger: SessionLedger = createSessionLedger(LEDGER_LIMITS);
  target: ActiveTarget | null = null;
  run: AnalysisRun | null = null;
  private bound: Bound | null = null;
  private readonly history: Array<LineageSnapshot | CallLineageSnapshot> = [];
  private readonly calls = new Set<{
    snapshot: Omit<CallLineageSnapshot, 'observations'>;
    supervisor: ProcessSupervisor;
  }>();
  private readonly inflight = new Set<{ controller: AbortController; done: Promise<unknown> }>();

  constructor(
    private readonly registry: () => ProviderRegistry,
    private readonly config: ReaConfig,
  ) {}

  /** What tools see of this session. */
  view(): SessionView {
    return { target: this.target, binding: this.bound?.binding ?? null, run_id: this.run?.run_id ?? null };
  }

  get binding(): ProviderBinding | null {
    return this.bound?.binding ?? null;
  }

  /**
   * `not_observed` until a provider has started a process in this session, then one snapshot per
   * provider session and per tool call that started one (earlier ones as recorded when they closed,
   * live ones observed now).
   */
  lineage(): { status: 'not_observed' } | { status: 'snapshots'; snapshots: JsonObject[] } {
    const snapshots: Array<LineageSnapshot | CallLineageSnapshot> = [...this.history];
    const live = this.bound;
    if (live && live.supervisor.processes().length > 0) {
      snapshots.push({ provider: live.binding.provider, run_id: live.runId, observations: live.supervisor.lineage() });
    }
    for (const call of this.calls) {
      if (call.supervisor.processes().length > 0) {
        snapshots.push({ ...call.snapshot, observations: call.supervisor.lineage() });
      }
    }
    if (snapshots.length === 0) return { status: 'not_observed' };
    return { status: 'snapshots', snapshots: snapshots as unknown as JsonObject[] };
  }

  /**
   * A supervisor for one tool call of `tool` (contributed by `provider`, null for the server's own
   * tools). While the call runs its lineage is observed live; when `executeTool` closes it, the
   * observations taken just before and just after the close are kept as the call's snapshot.
   */
  callSupervisor(tool: string, provider: CallLineageSnapshot['provider']): ProcessSupervisor {
    const supervisor = createCallSupervisor();
    const snapshot = { provider, tool, run_id: this.run?.run_id ?? null };
    const entry = { snapshot, supervisor };
    this.calls.add(entry);
    return {
      ...supervisor,
      closeAll: async (options) => {
        if (!this.calls.has(entry)) return supervisor.closeAll(options);
        const before = supervisor.lineage();
        try {
          await supervisor.closeAll(options);
        } finally {
          this.calls.delete(entry);
          if (supervisor.processes().length > 0) {
            this.history.push({ ...snapshot, observations: [...before, ...supervisor.lineage()] });
          }
        }
      },
    };
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
   * and only then is a provider selected and started.
   */
  async open(
    target: ActiveTarget,
    choice: ProviderChoice,
    origin: ChoiceOrigin,
    signal: AbortSignal,
    progress: ProgressSink,
  ): Promise<{ reused: boolean }> {
    const current = this.bound;
    if (
      current &&
      this.target?.path === target.path &&
      this.target.sha256 === target.sha256 &&
      (choice.kind === 'auto' || choice.id === current.provider.id)
    ) {
      return { reused: true };
    }
    if (this.target || current) await this.releaseProvider(signal);
    const run: AnalysisRun = { run_id: `run_${randomUUID()}`, started_at: new Date().toISOString() };
    this.run = run;
    progress.report(`run ${run.run_id} allocated; probing providers`, 'selection');
    const probes = await probeProviders(this.registry(), { signal });
    const selection = selectProvider({
      registry: this.registry(),
      choice,
      source: origin === 'default' ? 'argument' : origin,
      target: { format: target.format },
      probes,
      port: NATIVE_PORT,
    });
    const provider = selection.provider;
    const supervisor = createProcessSupervisor();
    progress.report(`starting ${provider.id}`, 'startup');
    let deep: DeepSession;
    try {
      deep = await provider.open(target, { signal, supervisor, runId: run.run_id, progress, config: this.config });
    } catch (error) {
      await supervisor.closeAll().catch(() => undefined);
      this.recordHistory(provider.id, provider.name, provider.version, run.run_id, supervisor);
      throw error;
    }
    const binding = createProviderBinding(provider, deep, selection.source, this.registry());
    if (signal.aborted) {
      await deep.close(new AbortController().signal).catch(() => undefined);
      await supervisor.closeAll().catch(() => undefined);
      throw new ReaError('cancelled', 'open_binary was cancelled.', { details: { phase: 'startup' } });
    }
    this.target = target;
    this.bound = { provider, deep, binding, supervisor, runId: run.run_id };
    return { reused: false };
  }

  private recordHistory(id: string, name: string, version: string, runId: string, supervisor: ProcessSupervisor): void {
    if (supervisor.processes().length === 0) return;
    this.history.push({ provider: { id, name, version }, run_id: runId, observations: supervisor.lineage() });
  }

  private async releaseProvider(signal: AbortSignal): Promise<void> {
    const bound = this.bound;
    this.bound = null;
    this.target = null;
    if (!bound) return;
    const { provider } = bound.binding;
    try {
      await bound.deep.close(signal);
    } finally {
      try {
        await bound.supervisor.closeAll();
      } finally {
        this.recordHistory(provider.id, provider.name, provider.version, bound.runId, bound.supervisor);
      }
    }
  }

  /**
   * Drains owned work (waits briefly, then aborts what remains), closes the provider, clears the
   * ledger and the target — also when no target is active. Remaining owned resources are
   * `cleanup_incomplete` with their kinds; the session is cleared either way.
   */
  async close(signal: AbortSignal, self?: AbortController): Promise<CloseReport> {
    const others = [...this.inflight].filter((entry) => entry.controller !== self);
    const drain = Promise.allSettled(others.map((entry) => entry.done));
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
    await Promise.race([drain, wait(2000)]);
    for (const entry of others) entry.controller.abort(new ReaError('cancelled', 'The session was closed.'));
    await Promise.race([drain, wait(2000)]);
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
    this.history.length = 0;
    if (failure) {
      if (failure.code === 'cleanup_incomplete') throw failure;
      throw new ReaError('cleanup_incomplete', `The provider did not close cleanly: ${failure.message}`, {
        operation: 'close_binary',
        details: {
          remaining: [{ kind: 'provider-session', identifiers: [report.closed_provider ?? 'unknown'] }],
          cause: failure.code,
        },
      });
    }
    return report;
  }

  /** Closes everything at the end of the connection (the ledger goes with it); resolves with the records cleared. */
  async dispose(): Promise<number> {
    for (const entry of this.inflight) entry.controller.abort(new ReaError('cancelled', 'The connection closed.'));
    await this.releaseProvider(new AbortController().signal).catch(() => undefined);
    return this.ledger.clear();
  }
}

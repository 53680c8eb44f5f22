import { randomUUID } from 'node:crypto';
import { ReaError, createSessionLedger, normalizeError } from '@rea/evidence';
import type { EvidenceRecord, JsonObject, SessionLedger } from '@rea/evidence';
import {
  NATIVE_PORT,
  createCallSupervisor,
  createProcessSupervisor,
  createProviderBinding,
  createSessionResources,
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
  SessionResourcesHost,
  SessionView,
} from '@rea/provider-kit';
import { OwnedCalls, sessionClosed, shuttingDown } from './ownedCalls.js';
import type { OwnedCall } from './ownedCalls.js';
import type { CallLineageSnapshot, LineageSnapshot } from './providers.js';

/** The run allocated for a target transition, before any provider starts. */
export interface AnalysisRun {
  run_id: string;
  started_at: string;
}

/** Ledger bounds of one connection. */
export const LEDGER_LIMITS = { maxRecords: 10_000, maxBytes: 512 * 1024 * 1024 };

/**
 * How long `close_binary` lets calls in flight finish before cancelling them, and how long it then
 * waits for the cancelled ones to clean up.
 */
export const CLOSE_GRACE_MS = 2000;

/** How long the end of a connection waits for the calls it cancelled to clean up and answer. */
export const SHUTDOWN_CLEANUP_MS = 10_000;

/** What ending a connection left: the records cleared and the owned work still not finished. */
export interface DisposeReport {
  cleared_records: number;
  /** Calls that were in flight when the session ended, and were cancelled. */
  cancelled_calls: number;
  /** Owned resources still held, by kind (`tool-call`: calls that had not answered; others as reported). */
  remaining: Array<{ kind: string; identifiers: string[] }>;
}

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
  /** What tools providers keep for later calls of this connection (e.g. an owned browser); ended by `dispose`. */
  readonly resources: SessionResourcesHost = createSessionResources();
  target: ActiveTarget | null = null;
  run: AnalysisRun | null = null;
  private bound: Bound | null = null;
  private readonly history: Array<LineageSnapshot | CallLineageSnapshot> = [];
  private readonly calls = new Set<{
    snapshot: Omit<CallLineageSnapshot, 'observations'>;
    supervisor: ProcessSupervisor;
  }>();
  private readonly owned = new OwnedCalls();
  /** open_binary and close_binary run one after another, in the order they arrived. */
  private transitions: Promise<unknown> = Promise.resolve();
  /** Owned resources the calls cancelled by `dispose` reported they could not release. */
  private readonly incomplete: Array<{ kind: string; identifiers: string[] }> = [];
  private disposing = false;
  /** The place of each running call among the calls of the connection, by its controller. */
  private readonly arrivals = new WeakMap<AbortController, number>();
  /** Records that must outlive the closes that arrived before their call (see {@link outlive}). */
  private readonly survivors = new Map<string, number>();

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

  /** Tracks a tool call as owned work until it has answered; `close_binary` and `dispose` drain these. */
  track(call: OwnedCall): void {
    this.owned.track(call);
  }

  /**
   * Records owned resources a call reported it could not release (`cleanup_incomplete`); while the
   * session is being disposed they are part of its report.
   */
  noteIncomplete(remaining: ReadonlyArray<{ kind: string; identifiers: string[] }>): void {
    if (!this.disposing) return;
    this.incomplete.push(...remaining.map((entry) => ({ kind: entry.kind, identifiers: [...entry.identifiers] })));
  }

  /** Runs `transition` after every earlier open/close of this session has finished. */
  private exclusive<T>(transition: () => Promise<T>): Promise<T> {
    const turn = this.transitions.then(transition, transition);
    this.transitions = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Opens `target` with the chosen provider. The same target with the same provider reuses the open
   * session. Otherwise a provider is selected first: a choice that selects none (an unknown id, a
   * target no provider supports) fails with the current target and provider left as they were. Then
   * the previous provider is closed (the ledger is kept), a run id is allocated, and only then does
   * the selected provider start.
   */
  open(
    target: ActiveTarget,
    choice: ProviderChoice,
    origin: ChoiceOrigin,
    signal: AbortSignal,
    progress: ProgressSink,
  ): Promise<{ reused: boolean }> {
    return this.exclusive(() => this.transition(target, choice, origin, signal, progress));
  }

  private async transition(
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
    progress.report('probing providers', 'selection');
    const probes = await probeProviders(this.registry(), { signal });
    const selection = selectProvider({
      registry: this.registry(),
      choice,
      source: origin === 'default' ? 'argument' : origin,
      target: { format: target.format },
      probes,
      port: NATIVE_PORT,
    });
    if (this.target || current) await this.releaseProvider(signal);
    const run: AnalysisRun = { run_id: `run_${randomUUID()}`, started_at: new Date().toISOString() };
    this.run = run;
    try {
      await this.start(target, selection, signal, progress, run);
    } catch (error) {
      // Only a successful transition keeps its run: a failed one leaves no target and no run.
      if (this.run === run) this.run = null;
      throw error;
    }
    return { reused: false };
  }

  /** Starts the selected provider of a transition whose run is already allocated. */
  private async start(
    target: ActiveTarget,
    selection: ReturnType<typeof selectProvider>,
    signal: AbortSignal,
    progress: ProgressSink,
    run: AnalysisRun,
  ): Promise<void> {
    const provider = selection.provider;
    const supervisor = createProcessSupervisor();
    progress.report(`run ${run.run_id} allocated; starting ${provider.id}`, 'startup');
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
   * Closes the session, after every earlier open/close (transitions are ordered, never cancelled by a
   * close). The other calls in flight when it starts get up to {@link CLOSE_GRACE_MS} to finish (their
   * results stand); those still running are then cancelled through their signal and answer `cancelled`
   * (`details.reason: "session-closed"`). Then the provider is closed and the ledger and the target are
   * cleared — also when no target is active. Remaining owned resources are `cleanup_incomplete` with
   * their kinds; the session is cleared either way.
   */
  close(signal: AbortSignal, self?: AbortController): Promise<CloseReport> {
    return this.exclusive(() => this.closeNow(signal, self));
  }

  /** Records `order`, the place of the call `controller` cancels among the calls of the connection. */
  arrived(controller: AbortController, order: number): void {
    this.arrivals.set(controller, order);
  }

  /**
   * Keeps the record `evidenceId`, retained by the call that arrived `order`-th while a close_binary was
   * pending, through the closes that arrived before it: that call answers on the session they leave,
   * and its answer links the record. Said before the record is retained, so that no clear falls between.
   */
  outlive(evidenceId: string, order: number): void {
    this.survivors.set(evidenceId, order);
  }

  private async closeNow(signal: AbortSignal, self?: AbortController): Promise<CloseReport> {
    const others = this.owned.inFlight({ self, work: true });
    const unsettled = await this.owned.drain(others, sessionClosed(), CLOSE_GRACE_MS, CLOSE_GRACE_MS);
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
    // Records of calls that arrived after this close stay (see outlive); every other is cleared.
    const order = self === undefined ? Infinity : (this.arrivals.get(self) ?? Infinity);
    const kept = [...this.survivors]
      .filter(([, arrived]) => arrived > order)
      .map(([id]) => this.ledger.get(id))
      .filter((record): record is EvidenceRecord => record !== undefined);
    report.cleared_records = this.ledger.clear() - kept.length;
    if (kept.length > 0) this.ledger.merge(kept);
    for (const [id, arrived] of this.survivors) if (arrived <= order) this.survivors.delete(id);
    this.run = null;
    this.history.length = 0;
    if (failure || unsettled.length > 0) {
      if (failure?.code === 'cleanup_incomplete') throw failure;
      const remaining = [
        ...(failure ? [{ kind: 'provider-session', identifiers: [report.closed_provider ?? 'unknown'] }] : []),
        ...(unsettled.length > 0 ? [{ kind: 'tool-call', identifiers: unsettled }] : []),
      ];
      throw new ReaError(
        'cleanup_incomplete',
        failure
          ? `The provider did not close cleanly: ${failure.message}`
          : `Calls in flight did not finish after they were cancelled: ${unsettled.join(', ')}.`,
        { operation: 'close_binary', details: { remaining, ...(failure ? { cause: failure.code } : {}) } },
      );
    }
    return report;
  }

  /**
   * Ends the session with its connection: cancels every call in flight through its signal, waits up to
   * {@link SHUTDOWN_CLEANUP_MS} for them to clean up and answer, closes the provider, ends what tools
   * providers kept for the session and clears the ledger. Reports what was cleared and every owned
   * resource known to remain.
   */
  async dispose(cleanupMs: number = SHUTDOWN_CLEANUP_MS): Promise<DisposeReport> {
    this.disposing = true;
    const inFlight = this.owned.inFlight();
    const unsettled = await this.owned.drain(inFlight, shuttingDown(), 0, cleanupMs);
    const remaining = [...this.incomplete];
    if (unsettled.length > 0) remaining.push({ kind: 'tool-call', identifiers: unsettled });
    const provider = this.bound?.provider.id ?? null;
    await this.releaseProvider(new AbortController().signal).catch(() => {
      remaining.push({ kind: 'provider-session', identifiers: [provider ?? 'unknown'] });
    });
    remaining.push(...(await this.resources.closeAll()));
    return { cleared_records: this.ledger.clear(), cancelled_calls: inFlight.length, remaining };
  }
}

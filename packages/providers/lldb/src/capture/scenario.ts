import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';
import { ReaError, isReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import type { OwnedProcess, ToolContext } from '@rea/provider-kit';
import { OutputCollector } from './output.js';
import { startPty } from './pty.js';
import type { PtySession } from './pty.js';
import type { Action, CaptureInput, CaptureResult, SignalAttempt } from './schema.js';
import { Screen } from './screen.js';
import { anyOwnedAlive, signalLauncher, signalOwned } from './signals.js';

const KILL_WAIT_MS = 3000;
const STREAM_WAIT_MS = 1000;

const signalName = (n: number | null): string | null =>
  n === null ? null : (Object.entries(constants.signals).find(([, v]) => v === n)?.[0] ?? `SIG${n}`);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Refuses action sequences that cannot run as written, each with what to change. */
export function checkActions(input: CaptureInput): void {
  let stdinClosed = false;
  input.actions.forEach((action, index) => {
    const bad = (message: string, remediation: string) => {
      throw new ReaError('invalid_request', `actions[${index}] (${action.type}): ${message}`, {
        remediation,
        details: { reason: 'invalid-action-sequence', issues: [{ path: `actions.${index}`, message }] },
      });
    };
    if (action.type === 'resize' && input.pty === false)
      bad('resize needs pty.', 'Give pty (true, or { columns, rows }) or remove the resize action.');
    if (action.type === 'wait_for_output' && input.pty !== false && action.stream !== 'any') {
      bad(
        'with pty there is one transcript: use stream "any".',
        'Use stream "any" with pty, or set pty to false to wait on stdout or stderr alone.',
      );
    }
    if (action.type === 'wait_for_output') {
      try {
        new RegExp(action.pattern, 'u');
      } catch (error) {
        bad(
          `the pattern is not a regular expression (${(error as Error).message}).`,
          'Fix the pattern: a JavaScript regular expression with the u flag, where ( ) [ ] { } . * + ? ^ $ | and \\ are escaped with \\ to match themselves.',
        );
      }
    }
    if ((action.type === 'write_stdin' || action.type === 'close_stdin') && stdinClosed)
      bad('stdin is already closed.', 'Move close_stdin after the last write_stdin, or remove the action.');
    if (action.type === 'close_stdin') stdinClosed = true;
  });
}

/** Everything a running scenario observes; `partial()` is what a failure reports. */
class Observation {
  readonly started = performance.now();
  readonly actions: CaptureResult['actions'] = [];
  readonly signals: SignalAttempt[] = [];
  readonly descendants = new Map<number, string>();
  exit: { code: number | null; signal: string | null } | null = null;
  exitMs: number | null = null;
  deadlineReached = false;
  cleanupSignals = 0;
  now = () => Math.round(performance.now() - this.started);
}

/**
 * Runs one declared scenario to its end: the actions in order, then the exit (or the deadline), then
 * cleanup of whatever REA still owns. Aborting `context.signal` cleans up and fails with `cancelled`;
 * a cleanup that leaves owned processes fails with `cleanup_incomplete`; both keep the observation so
 * far, with every signal attempt, in `details.partial_observation`.
 */
export async function runScenario(input: CaptureInput, python: string, context: ToolContext): Promise<CaptureResult> {
  const obs = new Observation();
  const size = input.pty === false ? null : input.pty === true ? { columns: 80, rows: 24 } : input.pty;
  const screen = size === null ? null : new Screen(size.columns, size.rows);
  const stdout = new OutputCollector(input.max_output_bytes, screen ? (text) => screen.write(text) : undefined);
  const stderr = new OutputCollector(input.max_output_bytes);
  const report = (phase: string, extra = '') =>
    context.progress.report(`phase ${phase}; elapsed ${obs.now()} ms${extra ? `; ${extra}` : ''}`, phase);
  const { signal } = context;
  const argv = [input.executable, ...input.args];
  let owned: OwnedProcess;
  let pty: PtySession | null = null;
  if (size !== null) {
    pty = await startPty(context.supervisor, python, size, argv, input);
    owned = pty.owned;
  } else {
    owned = await context.supervisor.start(input.executable, input.args, {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      env: input.env,
      ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    });
    owned.stdin?.on('error', () => undefined);
  }
  report('started');
  const streams = Promise.all([stdout.attach(owned.stdout), pty ? Promise.resolve() : stderr.attach(owned.stderr)]);
  const exited: Promise<void> = (pty ? pty.exited : owned.exited).then((exit) => {
    obs.exit = { code: exit.exitCode, signal: typeof exit.signal === 'number' ? signalName(exit.signal) : exit.signal };
    obs.exitMs = obs.now();
  });
  const deadlineAt = obs.started + input.deadline_ms;
  const noteLineage = () => {
    const lineage = owned.lineage();
    if (lineage.status === 'verified') for (const d of lineage.descendants) obs.descendants.set(d.pid, d.comm);
  };
  const lineageTimer = setInterval(noteLineage, 100);

  /** Waits for `event` until the deadline or the abort; resolves which came first. */
  const until = async (
    event: Promise<unknown>,
    ms = Infinity,
  ): Promise<'event' | 'timeout' | 'deadline' | 'aborted'> => {
    if (signal.aborted) return 'aborted';
    const remaining = deadlineAt - performance.now();
    const limit = Math.max(0, Math.min(ms, remaining));
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const outcome = await Promise.race([
      event.then(() => 'event' as const),
      new Promise<'timeout' | 'deadline'>((resolve) => {
        timer = setTimeout(() => resolve(ms <= remaining ? 'timeout' : 'deadline'), limit);
      }),
      new Promise<'aborted'>((resolve) => {
        onAbort = () => resolve('aborted');
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    if (outcome === 'deadline') obs.deadlineReached = true;
    return outcome;
  };

  const perform = async (action: Action, index: number): Promise<'continue' | 'stop'> => {
    const startedMs = obs.now();
    report(`action ${index + 1}/${input.actions.length} ${action.type}`);
    let outcome: CaptureResult['actions'][number]['outcome'] = 'done';
    let detail: string | null = null;
    let stop = false;
    if (action.type === 'write_stdin') {
      if (pty) pty.write(action.data);
      else if (obs.exit === null)
        await new Promise<void>((resolve) => owned.stdin!.write(action.data, () => resolve()));
      else outcome = 'exited';
    } else if (action.type === 'close_stdin') {
      if (pty) pty.eof();
      else owned.stdin?.end();
    } else if (action.type === 'wait') {
      const result = await until(sleep(action.duration_ms));
      if (result !== 'event') [outcome, stop] = ['skipped', true];
    } else if (action.type === 'signal') {
      const attempt = pty
        ? await pty.signal(action.signal, obs.now())
        : signalLauncher(owned, action.signal, obs.now());
      obs.signals.push(attempt);
      detail = attempt.result;
    } else if (action.type === 'resize') {
      pty!.resize(action.columns, action.rows);
      screen!.resize(action.columns, action.rows);
    } else {
      const pattern = new RegExp(action.pattern, 'u');
      const sources = action.stream === 'stdout' ? [stdout] : action.stream === 'stderr' ? [stderr] : [stdout, stderr];
      const found = () => sources.some((source) => source.consume(pattern));
      let unlisten: Array<() => void> = [];
      let seen: 'matched' | 'exited' = 'exited';
      const settled = new Promise<void>((resolve) => {
        const done = (value: 'matched' | 'exited') => {
          seen = value;
          resolve();
        };
        if (found()) return done('matched');
        unlisten = sources.map((source) => source.listen(() => found() && done('matched')));
        // Output written just before the exit still counts: wait for the streams to end first.
        void exited
          .then(() => Promise.race([streams, sleep(STREAM_WAIT_MS)]))
          .then(() => done(found() ? 'matched' : 'exited'));
      });
      const result = await until(settled, action.timeout_ms);
      unlisten.forEach((stopListening) => stopListening());
      if (result === 'event') outcome = seen;
      else if (result === 'timeout') outcome = 'timeout';
      else [outcome, stop] = ['skipped', true];
    }
    obs.actions.push({
      index,
      type: action.type,
      outcome,
      started_ms: startedMs,
      elapsed_ms: obs.now() - startedMs,
      detail,
    });
    return stop ? 'stop' : 'continue';
  };

  const finish = (cleanupStatus: 'not-needed' | 'complete'): CaptureResult => ({
    argv,
    pty: size,
    actions: obs.actions,
    stdout: pty ? null : stdout.result(),
    stderr: pty ? null : stderr.result(),
    transcript: pty ? stdout.result() : null,
    screen: screen?.snapshot() ?? null,
    exit_code: obs.exit?.code ?? null,
    signal: obs.exit?.signal ?? null,
    elapsed_ms: obs.exitMs,
    deadline_reached: obs.deadlineReached,
    signals: obs.signals,
    descendants_seen: [...obs.descendants].map(([pid, comm]) => ({ pid, comm })),
    cleanup: { status: cleanupStatus, signals_sent: obs.cleanupSignals },
  });

  const cleanup = async (): Promise<'not-needed' | 'complete'> => {
    noteLineage();
    if (!anyOwnedAlive(owned)) return 'not-needed';
    report('cleanup');
    for (const [name, wait] of [
      [input.cleanup.signal, input.cleanup.grace_ms],
      ['SIGKILL', KILL_WAIT_MS],
    ] as const) {
      const attempts = signalOwned(owned, name, obs.now());
      obs.signals.push(...attempts);
      obs.cleanupSignals += attempts.length;
      const deadline = performance.now() + wait;
      // A cancellation during the grace period cuts it short: what is left is killed at once.
      while (anyOwnedAlive(owned) && performance.now() < deadline && !(name !== 'SIGKILL' && signal.aborted)) {
        await sleep(25);
      }
      if (!anyOwnedAlive(owned)) return 'complete';
      if (name === 'SIGKILL') break;
    }
    const lineage = owned.lineage();
    const pids = lineage.status === 'verified' ? lineage.descendants.map((d) => `pid:${d.pid}`) : [];
    if (lineage.status === 'verified' && lineage.launcher_alive) pids.unshift(`pid:${owned.identity.pid}`);
    throw new ReaError('cleanup_incomplete', 'Owned resources remain after cleanup: processes.', {
      details: { remaining: [{ kind: 'processes', identifiers: pids }] },
    });
  };

  let failure: ReaError | null = null;
  try {
    let stopped = false;
    for (const [index, action] of input.actions.entries()) {
      if (signal.aborted || obs.deadlineReached) break;
      if ((await perform(action, index)) === 'stop') {
        stopped = true;
        break;
      }
    }
    if (!stopped && input.then === 'wait_for_exit' && !signal.aborted) {
      report('waiting for exit');
      await until(exited);
    }
  } catch (error) {
    failure = isReaError(error) ? error : new ReaError('execution_failure', `The scenario failed: ${String(error)}`);
  }
  let cleanupStatus: 'not-needed' | 'complete' = 'not-needed';
  try {
    cleanupStatus = await cleanup();
    await Promise.race([exited, sleep(STREAM_WAIT_MS)]);
    await Promise.race([streams, sleep(STREAM_WAIT_MS)]);
  } catch (error) {
    failure ??= isReaError(error) ? error : new ReaError('internal', String(error));
  } finally {
    clearInterval(lineageTimer);
  }
  const result = finish(cleanupStatus);
  if (signal.aborted && failure === null) {
    failure = new ReaError('cancelled', 'The scenario was cancelled; what REA owned was cleaned up.', {
      details: { phase: 'capture' },
    });
  }
  report('finished', `cleanup ${failure?.code === 'cleanup_incomplete' ? 'incomplete' : cleanupStatus}`);
  if (failure !== null) {
    throw new ReaError(failure.code, failure.message, {
      remediation: failure.remediation,
      details: { ...failure.details, partial_observation: result as unknown as JsonObject },
    });
  }
  return result;
}

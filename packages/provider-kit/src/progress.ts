import type { ProgressSink } from './context.js';

/** One progress notification. There is deliberately no `total`: future observations cannot be counted. */
export interface ProgressNotification {
  /** Number of status observations so far; strictly increases from one notification to the next. */
  progress: number;
  /** Phase, elapsed time and observed work, e.g. "startup: importing target (12.0s elapsed, 3 observations)". */
  message: string;
}

/** Options for {@link createProgressReporter}. */
export interface ProgressReporterOptions {
  /** Delivers a notification (e.g. MCP notifications/progress). Failures are ignored. */
  send: (notification: ProgressNotification) => void | Promise<void>;
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
  /** Minimum spacing of intermediate notifications in ms (default 100). */
  intervalMs?: number;
  /** Phase named until a report names another (default "running"). */
  phase?: string;
}

/** A progress sink that numbers, rate-bounds and formats observations, and always sends a terminal update. */
export interface ProgressReporter extends ProgressSink {
  /** Records one observation; `phase` (when given) becomes the current phase. Ignored after `finish`. */
  report(message: string, phase?: string): void;
  /** Records the terminal observation and sends it at once, whatever the rate bound. Idempotent. */
  finish(message: string, phase?: string): void;
  /** Observations recorded so far. */
  readonly observations: number;
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}

/**
 * Creates a progress reporter. Every report is one observation; a notification's `progress` is the
 * number of observations at the time it is sent, so it strictly increases even while a waiting phase
 * does no new work. Intermediate notifications are at most one per `intervalMs`: a report inside the
 * window is held and the latest held one is sent when the window ends. `finish` cancels anything held
 * and sends the terminal notification immediately.
 */
export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? 100;
  const started = now();
  let count = 0;
  let phase = options.phase ?? 'running';
  let lastSentAt = Number.NEGATIVE_INFINITY;
  let lastSentProgress = 0;
  let held: string | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let finished = false;

  const format = (message: string) =>
    `${phase}: ${message} (${seconds(now() - started)} elapsed, ${count} observation${count === 1 ? '' : 's'})`;

  const deliver = (message: string) => {
    if (count <= lastSentProgress) return;
    lastSentProgress = count;
    lastSentAt = now();
    try {
      void Promise.resolve(options.send({ progress: count, message })).catch(() => undefined);
    } catch {
      // A failing transport must not fail the tool.
    }
  };

  const flush = () => {
    timer = null;
    if (held !== null && !finished) {
      const message = held;
      held = null;
      deliver(message);
    }
  };

  return {
    get observations() {
      return count;
    },
    report(message, newPhase) {
      if (finished) return;
      if (newPhase) phase = newPhase;
      count += 1;
      const text = format(message);
      const wait = lastSentAt + interval - now();
      if (wait <= 0 && timer === null) {
        deliver(text);
        return;
      }
      held = text;
      if (timer === null) {
        timer = setTimeout(flush, Math.max(0, wait));
        (timer as { unref?: () => void }).unref?.();
      }
    },
    finish(message, newPhase) {
      if (finished) return;
      finished = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      held = null;
      if (newPhase) phase = newPhase;
      count += 1;
      deliver(format(message));
    },
  };
}

/** Stops periodic waiting notices. */
export interface WaitingNotices {
  stop(): void;
}

/**
 * While an engine starts, reports "still waiting (Ns elapsed)" to `progress` every `everyMs` (default
 * 10000) until `stop()` is called or `signal` aborts. Each notice is an observation of time passing,
 * not of work done.
 */
export function startWaitingNotices(
  progress: ProgressSink,
  options: { phase: string; everyMs?: number; signal?: AbortSignal; now?: () => number },
): WaitingNotices {
  const now = options.now ?? Date.now;
  const started = now();
  const every = options.everyMs ?? 10_000;
  const timer = setInterval(() => {
    const elapsed = Math.round((now() - started) / 1000);
    progress.report(`still waiting (${elapsed}s elapsed)`, options.phase);
  }, every);
  (timer as { unref?: () => void }).unref?.();
  const stop = () => {
    clearInterval(timer);
    options.signal?.removeEventListener('abort', stop);
  };
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });
  return { stop };
}

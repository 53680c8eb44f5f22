import type { ProgressSink } from '@rea/provider-kit';

/** One progress notification's payload (no `total`: the number of future observations is unknown). */
export interface ProgressUpdate {
  progress: number;
  message: string;
}

/** A progress reporter bound to one request. */
export interface RequestProgress extends ProgressSink {
  /** Sends the terminal update (always, regardless of the rate bound) and stops further updates. */
  finish(message: string): void;
  /** Stops without a terminal update (the request was cancelled: its token is no longer live). */
  dispose(): void;
}

/**
 * Counts status observations and sends them as progress updates: `progress` is the count of updates
 * sent so far and strictly increases; at most one intermediate update per `intervalMs` (a newer
 * observation replaces one still waiting); the terminal update is always sent. Messages carry the
 * phase, elapsed time and observed work, never a percentage.
 */
export function createProgressReporter(options: {
  send: (update: ProgressUpdate) => void;
  intervalMs?: number;
  now?: () => number;
}): RequestProgress {
  const interval = options.intervalMs ?? 100;
  const now = options.now ?? (() => Date.now());
  const started = now();
  let count = 0;
  let lastSent = -Infinity;
  let pending: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let done = false;
  const emit = (message: string): void => {
    count += 1;
    lastSent = now();
    const elapsed = lastSent - started;
    options.send({ progress: count, message: `${message} (elapsed ${elapsed} ms)` });
  };
  const flush = (): void => {
    timer = null;
    if (done || pending === null) return;
    const message = pending;
    pending = null;
    emit(message);
  };
  return {
    report(message) {
      if (done) return;
      const wait = lastSent + interval - now();
      if (wait <= 0 && timer === null) {
        emit(message);
        return;
      }
      pending = message;
      if (timer === null) {
        timer = setTimeout(flush, Math.max(0, wait));
        timer.unref();
      }
    },
    finish(message) {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      timer = null;
      pending = null;
      emit(message);
    },
    dispose() {
      done = true;
      if (timer) clearTimeout(timer);
      timer = null;
      pending = null;
    },
  };
}

/** A sink that drops every observation (a request without a progress token). */
export const SILENT_PROGRESS: RequestProgress = {
  report: () => undefined,
  finish: () => undefined,
  dispose: () => undefined,
};

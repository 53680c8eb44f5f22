import { ReaError } from '@rea/evidence';

/** Options for {@link withDeadline}. */
export interface DeadlineOptions {
  /** The deadline in ms: an integer from 1 to 2147483647. */
  ms: number;
  /** The caller's cancellation signal. */
  signal?: AbortSignal;
  /** The phase being bounded (e.g. "startup"), reported in details. */
  phase: string;
  providerId: string;
  /** The setting that controls this deadline (e.g. "REA_GHIDRA_STARTUP_TIMEOUT_MS"), named in the remediation. */
  setting?: string;
}

/**
 * Runs `work` with a signal that aborts at the deadline or when `options.signal` aborts. A deadline
 * fails with `provider_timeout` (details: provider_id, deadline_ms, phase); the caller's abort fails
 * with `cancelled` (details: phase) — distinct codes. Whatever `work` does after that is ignored.
 */
export async function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, options: DeadlineOptions): Promise<T> {
  const { ms, phase, providerId } = options;
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > 2_147_483_647) {
    throw new ReaError('invalid_request', `Deadline ${ms} ms is not an integer from 1 to 2147483647.`, {
      details: { reason: 'invalid-deadline', deadline_ms: String(ms), phase },
    });
  }
  const cancelled = () =>
    new ReaError('cancelled', `Cancelled during ${phase}.`, { details: { phase, provider_id: providerId } });
  if (options.signal?.aborted) throw cancelled();
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ReaError('provider_timeout', `${providerId} did not finish ${phase} within ${ms} ms.`, {
        ...(options.setting
          ? { remediation: `Raise ${options.setting} (now ${ms} ms), or retry with a smaller request.` }
          : {}),
        details: { provider_id: providerId, deadline_ms: ms, phase },
      });
      // Settle first, so the work's reaction to the abort cannot win the race.
      reject(error);
      controller.abort(error);
    }, ms);
    onAbort = () => {
      const error = cancelled();
      reject(error);
      controller.abort(error);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    stopped.catch(() => undefined);
  }
}

import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { isReaError } from '@rea/evidence';
import { withDeadline } from '@rea/provider-kit';

beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});

/** Work that settles only when its signal aborts, recording the abort reason it saw. */
function untilAborted(seen: { reason?: unknown }) {
  return (signal: AbortSignal) =>
    new Promise<string>((_, reject) => {
      signal.addEventListener('abort', () => {
        seen.reason = signal.reason;
        reject(new Error('engine interrupted'));
      });
    });
}

async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

describe('withDeadline', () => {
  it('should return the result when the work finishes first', async () => {
    const result = settle(withDeadline(async () => 'ready', { ms: 1000, phase: 'startup', providerId: 'ghidra' }));
    await jest.advanceTimersByTimeAsync(0);
    expect(await result).toEqual({ ok: true, value: 'ready' });
  });

  it('should fail with provider_timeout at the deadline and abort the work', async () => {
    const seen: { reason?: unknown } = {};
    const result = settle(
      withDeadline(untilAborted(seen), {
        ms: 330_000,
        phase: 'startup',
        providerId: 'ghidra',
        setting: 'REA_GHIDRA_STARTUP_TIMEOUT_MS',
      }),
    );
    await jest.advanceTimersByTimeAsync(329_999);
    expect(seen.reason).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    const outcome = await result;
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(isReaError(outcome.error)).toBe(true);
    expect(outcome.error).toMatchObject({
      code: 'provider_timeout',
      retryable: true,
      details: { provider_id: 'ghidra', deadline_ms: 330000, phase: 'startup' },
    });
    expect((outcome.error as { remediation: string }).remediation).toContain('REA_GHIDRA_STARTUP_TIMEOUT_MS');
    expect(seen.reason).toBe(outcome.error);
  });

  it('should fail with cancelled, not provider_timeout, when the caller aborts', async () => {
    const controller = new AbortController();
    const seen: { reason?: unknown } = {};
    const result = settle(
      withDeadline(untilAborted(seen), { ms: 1000, signal: controller.signal, phase: 'startup', providerId: 'hopper' }),
    );
    await jest.advanceTimersByTimeAsync(500);
    controller.abort();
    const outcome = await result;
    expect(outcome).toMatchObject({ ok: false, error: { code: 'cancelled', details: { phase: 'startup' } } });
    await jest.advanceTimersByTimeAsync(1000);
    expect(seen.reason).toMatchObject({ code: 'cancelled' });
  });

  it('should refuse to start work when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let started = false;
    const outcome = await settle(
      withDeadline(
        async () => {
          started = true;
        },
        { ms: 1000, signal: controller.signal, phase: 'open', providerId: 'x' },
      ),
    );
    expect(outcome).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(started).toBe(false);
  });

  it('should pass through the work failure when it fails before the deadline', async () => {
    const outcome = await settle(
      withDeadline(
        async () => {
          throw new Error('bridge refused');
        },
        { ms: 1000, phase: 'open', providerId: 'x' },
      ),
    );
    expect(outcome).toMatchObject({ ok: false, error: { message: 'bridge refused' } });
  });

  for (const ms of [0, -1, 1.5, 2_147_483_648, Number.NaN]) {
    it(`should refuse a deadline of ${ms} ms`, async () => {
      const outcome = await settle(withDeadline(async () => 1, { ms, phase: 'open', providerId: 'x' }));
      expect(outcome).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    });
  }
});

import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createProgressReporter, startWaitingNotices } from '@rea/provider-kit';
import type { ProgressNotification } from '@rea/provider-kit';

interface Sent extends ProgressNotification {
  at: number;
}

function recorder() {
  const sent: Sent[] = [];
  const reporter = createProgressReporter({
    send: (n) => {
      sent.push({ ...n, at: Date.now() });
    },
  });
  return { sent, reporter };
}

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('createProgressReporter', () => {
  it('should send the first observation at once, numbered 1, naming phase, elapsed time and work', () => {
    const { sent, reporter } = recorder();
    jest.advanceTimersByTime(2500);
    reporter.report('importing target', 'startup');
    expect(sent).toEqual([
      { progress: 1, message: 'startup: importing target (2.5s elapsed, 1 observation)', at: 1_002_500 },
    ]);
    expect(Object.keys(sent[0]!).sort()).toEqual(['at', 'message', 'progress']);
  });

  it('should coalesce observations inside 100 ms into one later update carrying the latest', () => {
    const { sent, reporter } = recorder();
    reporter.report('a');
    jest.advanceTimersByTime(10);
    reporter.report('b');
    jest.advanceTimersByTime(10);
    reporter.report('c');
    jest.advanceTimersByTime(10);
    reporter.report('d');
    expect(sent).toHaveLength(1);
    jest.advanceTimersByTime(69);
    expect(sent).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ progress: 4, at: 1_000_100 });
    expect(sent[1]!.message).toMatch(/^running: d \(0\.0s elapsed, 4 observations\)$/);
  });

  it('should bound intermediate updates to one per 100 ms and keep progress strictly increasing', () => {
    const { sent, reporter } = recorder();
    // A deterministic irregular stream of 2000 observations over about 20 s.
    let seed = 7;
    for (let i = 0; i < 2000; i += 1) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      jest.advanceTimersByTime(seed % 21);
      reporter.report(`step ${i}`);
    }
    jest.advanceTimersByTime(1);
    reporter.finish('done');
    const intermediate = sent.slice(0, -1);
    for (let i = 1; i < intermediate.length; i += 1) {
      expect(intermediate[i]!.at - intermediate[i - 1]!.at).toBeGreaterThanOrEqual(100);
    }
    for (let i = 1; i < sent.length; i += 1) expect(sent[i]!.progress).toBeGreaterThan(sent[i - 1]!.progress);
    expect(sent.length).toBeLessThan(2000);
    expect(sent.at(-1)).toMatchObject({ progress: 2001 });
    expect(sent.at(-1)!.message).toMatch(/^running: done \(\d+\.\ds elapsed, 2001 observations\)$/);
  });

  it('should always send the terminal update, even right after an intermediate one, and drop what was held', () => {
    const { sent, reporter } = recorder();
    reporter.report('first');
    jest.advanceTimersByTime(5);
    reporter.report('held');
    reporter.finish('finished', 'cleanup');
    jest.advanceTimersByTime(1000);
    expect(sent.map((n) => n.progress)).toEqual([1, 3]);
    expect(sent[1]!.message).toBe('cleanup: finished (0.0s elapsed, 3 observations)');
    reporter.report('late');
    reporter.finish('again');
    jest.advanceTimersByTime(1000);
    expect(sent).toHaveLength(2);
    expect(reporter.observations).toBe(3);
  });

  it('should survive a failing transport', () => {
    const reporter = createProgressReporter({
      send: () => {
        throw new Error('closed');
      },
    });
    expect(() => reporter.report('x')).not.toThrow();
    const rejecting = createProgressReporter({ send: () => Promise.reject(new Error('closed')) });
    expect(() => rejecting.finish('x')).not.toThrow();
  });
});

describe('startWaitingNotices', () => {
  it('should report still-waiting observations every 10 s, increasing progress with no new work', () => {
    const { sent, reporter } = recorder();
    reporter.report('launching engine', 'startup');
    const notices = startWaitingNotices(reporter, { phase: 'startup' });
    jest.advanceTimersByTime(30_000);
    notices.stop();
    jest.advanceTimersByTime(30_000);
    expect(sent.map((n) => n.progress)).toEqual([1, 2, 3, 4]);
    expect(sent.slice(1).map((n) => n.message)).toEqual([
      'startup: still waiting (10s elapsed) (10.0s elapsed, 2 observations)',
      'startup: still waiting (20s elapsed) (20.0s elapsed, 3 observations)',
      'startup: still waiting (30s elapsed) (30.0s elapsed, 4 observations)',
    ]);
  });

  it('should stop when the signal aborts', () => {
    const { sent, reporter } = recorder();
    const controller = new AbortController();
    startWaitingNotices(reporter, { phase: 'startup', everyMs: 1000, signal: controller.signal });
    jest.advanceTimersByTime(2500);
    controller.abort();
    jest.advanceTimersByTime(10_000);
    expect(sent).toHaveLength(2);
    const already = new AbortController();
    already.abort();
    startWaitingNotices(reporter, { phase: 'startup', signal: already.signal });
    jest.advanceTimersByTime(60_000);
    expect(sent).toHaveLength(2);
  });
});

// monotonicMs() is a monotonic millisecond clock that does not make Node.js load node:perf_hooks.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { monotonicMs } from '../src/clock.js';

const built = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'clock.js')).href;

describe('monotonicMs', () => {
  it('should never go back, and advance as time passes', async () => {
    let last = monotonicMs();
    for (let i = 0; i < 10_000; i += 1) {
      const now = monotonicMs();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    const before = monotonicMs();
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Timers fire no earlier than asked (give or take a millisecond of rounding).
    expect(monotonicMs() - before).toBeGreaterThanOrEqual(29);
  });

  it('should not load node:perf_hooks', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { monotonicMs } = await import(${JSON.stringify(built)}); const before = new Set(process.moduleLoadList); monotonicMs(); const after = process.moduleLoadList.filter((m) => !before.has(m)); performance.now(); console.log(JSON.stringify({ after, performance: process.moduleLoadList.filter((m) => !before.has(m)).length }));`,
      ],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(0);
    const { after, performance } = JSON.parse(run.stdout) as { after: string[]; performance: number };
    expect(after).toEqual([]);
    // The global performance, by contrast, loads modules on its first use.
    expect(performance).toBeGreaterThan(0);
  });
});

// The deadline variant of keeping finished work: when the analysis deadline passes while the worker is
// in the middle of a script, every script it finished before is kept, the script it was on is named,
// and coverage is partial. The deadline is made certain without depending on how fast the machine is:
// the owner's clock is a fake one, advanced past the deadline the moment the worker hands over the last
// small script, while the worker is on a script far too large to finish in that instant; the worker's
// own early stop (75% of the time) never comes, its clock being the real one and the deadline ten
// minutes away.
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { withTempDir } from '@rea/test-helpers';
import { analyzeInWorker } from '../src/worker/owner.js';

const SMALL = 4;
const DEADLINE_MS = 600_000;

/** SMALL scripts with one URL each, then (last in path order) one script that takes seconds to parse. */
function appWithOneLongScript(dir: string): string {
  const app = join(dir, 'app');
  mkdirSync(app);
  for (let i = 0; i < SMALL; i += 1) {
    writeFileSync(
      join(app, `m${i}.js`),
      `const api = "https://host${i}.example/api";\nrequire('./m${(i + 1) % SMALL}.js');\n`,
    );
  }
  const lines: string[] = [];
  for (let i = 0; i < 150_000; i += 1) lines.push(`var a${i} = "s${i}" + f(${i});`);
  writeFileSync(join(app, 'z-long.js'), lines.join('\n'));
  return app;
}

afterEach(() => {
  jest.useRealTimers();
});

describe('the analysis deadline in the middle of the parse', () => {
  it('should keep every script finished before it and name the script it was on', async () => {
    await withTempDir(async (tmp) => {
      const app = appWithOneLongScript(tmp);
      // Only the owner's timers are fake: its deadline fires when the clock is advanced, not before.
      jest.useFakeTimers({
        doNotFake: [
          'Date',
          'hrtime',
          'nextTick',
          'performance',
          'queueMicrotask',
          'setImmediate',
          'clearImmediate',
          'setInterval',
          'clearInterval',
        ],
      });
      let advanced = false;
      const onWorker = (worker: Worker) =>
        worker.on('message', (text: string) => {
          const message = JSON.parse(text) as { type: string; record?: { module: { path: string } } };
          // The owner's listener, added first, has already kept this record.
          if (message.type === 'file' && message.record?.module.path === `m${SMALL - 1}.js`) {
            advanced = true;
            jest.advanceTimersByTime(DEADLINE_MS);
          }
        });
      const outcome = await analyzeInWorker(app, {
        integrityPolicy: 'fail-closed',
        signal: new AbortController().signal,
        onProgress: () => undefined,
        maxDurationMs: DEADLINE_MS,
        onWorker,
      });
      expect(advanced).toBe(true);
      const { modules, unknowns, hosts, edges, phases } = outcome.result;
      const parsed = modules.filter((m) => m.source_type !== null).map((m) => m.path);
      expect(parsed).toEqual(['m0.js', 'm1.js', 'm2.js', 'm3.js']);
      expect(hosts).toEqual(['host0.example', 'host1.example', 'host2.example', 'host3.example']);
      expect(edges.filter((e) => e.target_kind === 'module')).toHaveLength(SMALL);
      expect(modules.find((m) => m.path === 'z-long.js')?.source_type).toBeNull();
      const culprit = unknowns.find((u) => u.scope === 'file:z-long.js');
      expect(culprit?.kind).toBe('deadline-reached');
      expect(culprit?.message).toMatch(/reached its 600000 ms deadline while analyzing this script.*max_duration_ms/);
      const stop = unknowns.find((u) => u.scope === 'application');
      expect(stop?.kind).toBe('stopped-at-cpu-bound');
      expect(stop?.message).toMatch(/at z-long\.js; 1 scripts were not analyzed/);
      expect(outcome.coverage.status).toBe('partial');
      expect(phases.find((p) => p.phase === 'parse')).toEqual({
        phase: 'parse',
        status: 'partial',
        reasons: ['1 of 5 scripts not parsed', 'the analysis reached its 600000 ms deadline at z-long.js'],
      });
    });
  }, 120_000);
});

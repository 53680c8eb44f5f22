// One script that exhausts the worker's heap while it is parsed (before the check between scripts can
// stop the parse) no longer loses the scripts finished before it: the worker hands over each script's
// record as soon as it is done, and the owner assembles them. The script it was on is named.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { analyzeInWorker } from '../src/worker/owner.js';

const SMALL = 5;
const HUGE_STATEMENTS = 400_000;

/** SMALL scripts with one URL each, then (last in path order) one script far too large for the heap. */
function appWithOneHugeScript(dir: string): string {
  const app = join(dir, 'app');
  mkdirSync(app);
  for (let i = 0; i < SMALL; i += 1) {
    writeFileSync(
      join(app, `m${i}.js`),
      `const api = "https://host${i}.example/api";\nrequire('./m${(i + 1) % SMALL}.js');\n`,
    );
  }
  const lines: string[] = [];
  for (let i = 0; i < HUGE_STATEMENTS; i += 1) lines.push(`var a${i} = "s${i}" + f(${i});`);
  writeFileSync(join(app, 'z-huge.js'), lines.join('\n'));
  return app;
}

const options = (maxHeapMb: number) => ({
  integrityPolicy: 'fail-closed' as const,
  signal: new AbortController().signal,
  onProgress: () => undefined,
  maxHeapMb,
});

describe('a script that exhausts the worker heap', () => {
  it('should keep every script finished before it and name it', async () => {
    await withTempDir(async (tmp) => {
      const outcome = await analyzeInWorker(appWithOneHugeScript(tmp), options(48));
      const { modules, unknowns, hosts, edges, phases } = outcome.result;
      // The small scripts were parsed before the huge one and kept with their facts and edges.
      const parsed = modules.filter((m) => m.source_type !== null).map((m) => m.path);
      expect(parsed).toEqual(['m0.js', 'm1.js', 'm2.js', 'm3.js', 'm4.js']);
      expect(hosts).toEqual(['host0.example', 'host1.example', 'host2.example', 'host3.example', 'host4.example']);
      expect(edges.filter((e) => e.target_kind === 'module')).toHaveLength(SMALL);
      // The huge script is a module without facts and a per-file unknown naming the exhausted heap.
      expect(modules.find((m) => m.path === 'z-huge.js')?.source_type).toBeNull();
      const culprit = unknowns.find((u) => u.scope === 'file:z-huge.js');
      expect(culprit?.kind).toBe('heap-exhausted');
      expect(culprit?.message).toMatch(/exhausted its 48 MiB heap limit while analyzing this script.*max_heap_mb/);
      const stop = unknowns.find((u) => u.scope === 'application');
      expect(stop?.kind).toBe('stopped-at-memory-bound');
      expect(stop?.message).toMatch(/at z-huge\.js; 1 scripts were not analyzed/);
      expect(outcome.limitations.map((l) => l.kind)).toEqual(
        expect.arrayContaining(['heap-exhausted', 'stopped-at-memory-bound']),
      );
      expect(outcome.coverage.status).toBe('partial');
      expect(phases.find((p) => p.phase === 'parse')).toEqual({
        phase: 'parse',
        status: 'partial',
        reasons: ['1 of 6 scripts not parsed', 'the analysis exhausted its 48 MiB heap limit at z-huge.js'],
      });
      expect(phases.map((p) => p.phase)).toEqual([
        'read',
        'inventory',
        'parse',
        'bundles',
        'source-maps',
        'graph',
        'electron',
      ]);
    });
  }, 120_000);

  it('should stay resource_constraint naming the script when it is the only one', async () => {
    await withTempDir(async (tmp) => {
      const app = join(tmp, 'one');
      mkdirSync(app);
      const lines: string[] = [];
      for (let i = 0; i < HUGE_STATEMENTS; i += 1) lines.push(`var a${i} = "s${i}" + f(${i});`);
      writeFileSync(join(app, 'huge.js'), lines.join('\n'));
      const error = await analyzeInWorker(app, options(48)).catch((e: unknown) => e);
      expect(isReaError(error) && [error.code, error.details['resource'], error.details['file']]).toEqual([
        'resource_constraint',
        'memory',
        'huge.js',
      ]);
    });
  }, 120_000);
});

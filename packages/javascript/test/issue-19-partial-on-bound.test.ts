// Coming close to the worker's heap limit after some scripts are parsed keeps them: the outcome is
// partial, every script not parsed is a per-file unknown, and the application says which bound stopped
// it. Reaching the bound before any script is parsed stays resource_constraint.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { analyzeInWorker } from '../src/worker/owner.js';
import { bigApplication } from './helpers/fixtures.js';

const FILES = 40;
const STATEMENTS = 5_000;

/** FILES scripts of STATEMENTS string statements each, whose facts the analysis keeps. */
function manyScripts(dir: string): string {
  const app = join(dir, 'many');
  mkdirSync(app);
  for (let file = 0; file < FILES; file += 1) {
    const lines: string[] = [];
    for (let i = 0; i < STATEMENTS; i += 1) lines.push(`var a${i} = "file${file}-s${i}" + f(${i});`);
    writeFileSync(join(app, `f${String(file).padStart(2, '0')}.js`), lines.join('\n'));
  }
  return app;
}

const options = (maxHeapMb: number) => ({
  integrityPolicy: 'fail-closed' as const,
  signal: new AbortController().signal,
  onProgress: () => undefined,
  maxHeapMb,
});

describe('an analysis that comes close to its heap limit', () => {
  it('should keep the scripts it parsed and list the rest as per-file unknowns', async () => {
    await withTempDir(async (tmp) => {
      const outcome = await analyzeInWorker(manyScripts(tmp), options(72));
      const { modules, unknowns, phases } = outcome.result;
      const parsed = modules.filter((m) => m.source_type !== null).map((m) => m.path);
      const left = unknowns.filter((u) => u.kind === 'not-parsed-resource-bound').map((u) => u.scope);
      expect(parsed.length).toBeGreaterThan(0);
      expect(left.length).toBeGreaterThan(0);
      // Every script is either parsed or a per-file unknown, never both, never neither.
      expect(modules).toHaveLength(FILES);
      expect(parsed.length + left.length).toBe(FILES);
      for (const module of modules) {
        expect(left.includes(module.node_id)).toBe(module.source_type === null);
      }
      // What was parsed is kept: the strings of the first script are there.
      expect(outcome.result.strings.some((s) => s.value === 'file0-s0')).toBe(true);
      expect(outcome.coverage.status).toBe('partial');
      expect(phases.find((p) => p.phase === 'parse')?.status).toBe('partial');
      const stop = unknowns.find((u) => u.scope === 'application' && u.kind === 'stopped-at-memory-bound');
      expect(stop?.message).toMatch(/72 MiB heap limit.*Raise max_heap_mb/);
      expect(outcome.limitations.map((l) => l.kind)).toContain('stopped-at-memory-bound');
    });
  }, 120_000);

  it('should stay resource_constraint (memory) when no script was parsed', async () => {
    await withTempDir(async (tmp) => {
      const error = await analyzeInWorker(bigApplication(tmp, 400_000), options(32)).catch((e: unknown) => e);
      expect(isReaError(error) && [error.code, error.details['resource'], error.details['limit_mb']]).toEqual([
        'resource_constraint',
        'memory',
        32,
      ]);
    });
  }, 120_000);
});

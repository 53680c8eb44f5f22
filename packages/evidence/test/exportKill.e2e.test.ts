// End-to-end checks against the built package (built once, here): a bundle export killed with
// SIGKILL at random points, and the README's library example run as a consumer would run it.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportBundle, importBundle, sealEvidence } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { functionObservation } from './records.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..', '..');
const script = join(here, 'fixtures', 'exportLarge.mjs');
const RECORDS = 60;

/**
 * Runs the exporting child and SIGKILLs it `delayMs` after it starts exporting (if still running;
 * never for an infinite delay). Reports how long the export ran.
 */
function exportAndKill(
  destination: string,
  delayMs: number,
): Promise<{ killed: boolean; stdout: string; exportMs: number }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, destination, String(RECORDS), '2000'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    let started = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (started === 0 && stdout.includes('exporting')) {
        started = performance.now();
        if (Number.isFinite(delayMs)) timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const exportMs = performance.now() - started;
      if (signal === 'SIGKILL') done({ killed: true, stdout, exportMs });
      else if (code === 0) done({ killed: false, stdout, exportMs });
      else fail(new Error(`export child failed (${code}): ${stderr}`));
    });
  });
}

/** True when dist/ is missing or older than some source file. */
function distIsStale(): boolean {
  const pkg = join(here, '..');
  const entry = join(pkg, 'dist', 'index.js');
  if (!existsSync(entry)) return true;
  const built = statSync(entry).mtimeMs;
  return readdirSync(join(pkg, 'src')).some((name) => statSync(join(pkg, 'src', name)).mtimeMs > built);
}

beforeAll(() => {
  // The children import the built package. Rebuilding removes dist/ for a moment, and other suites
  // running at the same time may import it, so an up-to-date build is left alone.
  if (!distIsStale()) return;
  const build = spawnSync(process.execPath, ['tools/build.mjs', '@rea/evidence'], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`building @rea/evidence failed: ${build.stderr}`);
}, 120_000);

describe('exportBundle under SIGKILL', () => {
  it('should leave the destination absent, previous, or a complete valid bundle', async () => {
    const previous = sealEvidence(functionObservation('0x1'));
    const outcomes = { killed: 0, completed: 0, previousKept: 0, absent: 0, published: 0 };
    // A first, uninterrupted export measures how long one takes on this machine now, so that the
    // random kill points spread over the whole export however loaded the machine is.
    let fullMs = 0;
    for (let iteration = 0; iteration < 11; iteration += 1) {
      await withTempDir(async (dir) => {
        const destination = join(dir, 'session-bundle.json');
        const withPrevious = iteration % 2 === 1;
        if (withPrevious) await exportBundle([previous], destination);
        // Random kill points across the export (the first a tenth of the way in), some after its end.
        const fraction = iteration === 1 ? 0.1 : Math.random() * 1.1;
        const delay = iteration === 0 ? Number.POSITIVE_INFINITY : Math.floor(fraction * fullMs);
        const { killed, exportMs } = await exportAndKill(destination, delay);
        if (iteration === 0) {
          expect(killed).toBe(false);
          fullMs = exportMs;
        }
        outcomes[killed ? 'killed' : 'completed'] += 1;

        if (!existsSync(destination)) {
          expect(withPrevious).toBe(false);
          expect(killed).toBe(true);
          outcomes.absent += 1;
        } else {
          const bundle = await importBundle(destination);
          const ids = bundle.records.map((r) => r.evidence_id);
          if (withPrevious && ids.length === 1 && ids[0] === previous.evidence_id) outcomes.previousKept += 1;
          else {
            expect(ids).toHaveLength(RECORDS);
            expect(new Set(ids).size).toBe(RECORDS);
            outcomes.published += 1;
          }
        }
        // Anything else in the folder is a hidden staging file, never a bundle under the final name.
        for (const name of readdirSync(dir).filter((n) => n !== 'session-bundle.json')) {
          expect(name).toMatch(/^\.session-bundle\.json\.[0-9a-f]{16}\.partial$/);
        }
        if (!killed) expect(readdirSync(dir)).toEqual(['session-bundle.json']);
      });
    }
    // The kills must have landed mid-export at least once for the test to mean anything.
    expect(outcomes.killed).toBeGreaterThan(0);
    expect(outcomes.absent + outcomes.previousKept).toBeGreaterThan(0);
    console.log(`SIGKILL export outcomes (one export takes ${Math.round(fullMs)} ms): ${JSON.stringify(outcomes)}`);
  }, 300_000);
});

describe('README example', () => {
  it('should run as written and print what its comments say', () =>
    withTempDir((dir) => {
      const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
      const code = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(code).toBeDefined();
      // Run from the package folder, so `@rea/evidence` resolves to the built package by its own name.
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', code!], {
        cwd: join(here, '..'),
        env: { ...process.env, TMPDIR: dir },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const expected = [...code!.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]!);
      const printed = run.stdout.trimEnd().split('\n');
      expect(printed).toHaveLength(expected.length);
      expect(expected[0]).toBe('ev_ followed by 64 hex digits');
      expect(printed[0]).toMatch(/^ev_[0-9a-f]{64}$/);
      expect(printed.slice(1)).toEqual(expected.slice(1));
      expect(readdirSync(dir)).toEqual([`rea-readme-${run.pid}.json`]);
    }));
});

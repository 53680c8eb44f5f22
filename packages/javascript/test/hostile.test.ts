import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { electronAsar } from './helpers/fixtures.js';

/** The typed error `promise` rejects with (fails the test when it resolves or throws something else). */
async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isReaError(error)) throw new Error(`expected a ReaError, got ${String(error)}`);
  return error;
}

describe('analyzeJavascriptApplication on hostile input', () => {
  it('should keep analyzing past deep nesting, syntax errors, non-UTF-8 bytes and maps outside the input', async () => {
    await withTempDir(async (tmp) => {
      const app = join(tmp, 'app');
      mkdirSync(app);
      writeFileSync(join(app, 'deep.js'), `x = ${'['.repeat(100_000)}${']'.repeat(100_000)};`);
      writeFileSync(join(app, 'chain.js'), `x = 1${'+1'.repeat(100_000)};`);
      writeFileSync(join(app, 'broken.js'), 'function (\n');
      writeFileSync(join(app, 'latin1.js'), Buffer.from([0x76, 0x61, 0x72, 0x20, 0x73, 0x3d, 0x27, 0xe9, 0x27, 0x3b]));
      writeFileSync(join(app, 'escape.js'), 'a();\n//# sourceMappingURL=../../etc/passwd.map\n');
      writeFileSync(join(app, 'remote.js'), 'b();\n//# sourceMappingURL=https://maps.example.com/remote.js.map\n');
      writeFileSync(join(app, 'missing.js'), 'c();\n//# sourceMappingURL=missing.js.map\n');
      writeFileSync(join(app, 'bad-map.js'), 'd();\n//# sourceMappingURL=bad-map.js.map\n');
      writeFileSync(join(app, 'bad-map.js.map'), '{"version":3,"sources":');
      writeFileSync(join(app, 'good.js'), 'require("./nowhere");\n');
      const { result, coverage, limitations } = await analyzeJavascriptApplication(app);
      const unknown = (scope: string) => result.unknowns.filter((u) => u.scope === scope).map((u) => u.kind);
      expect(unknown('file:deep.js')).toEqual(['too-deeply-nested']);
      expect(unknown('file:broken.js')).toEqual(['unparsable']);
      expect(unknown('file:latin1.js')).toEqual(['not-utf8']);
      expect(unknown('file:escape.js')).toEqual(['source-map-unresolved']);
      expect(unknown('file:chain.js')).toEqual(['minified-without-source-map']);
      const map = (path: string) => result.modules.find((m) => m.path === path)!.source_map;
      expect(map('escape.js')).toMatchObject({
        status: 'unresolved',
        reason: 'the map is remote or outside the input',
      });
      expect(map('remote.js')).toMatchObject({
        status: 'unresolved',
        reason: 'the map is remote or outside the input',
      });
      expect(map('missing.js')).toMatchObject({ status: 'unresolved', reason: 'the map is not in the input' });
      expect(map('bad-map.js').status).toBe('unresolved');
      expect(map('bad-map.js').reason).toMatch(/^the map is not valid source-map JSON/);
      expect(result.modules.find((m) => m.path === 'deep.js')!.source_type).toBeNull();
      expect(result.modules.find((m) => m.path === 'chain.js')!.source_type).toBe('script');
      expect(result.edges.find((e) => e.specifier === './nowhere')).toMatchObject({
        to: null,
        target_kind: 'unresolved',
      });
      expect(coverage.status).toBe('partial');
      expect(coverage.reasons).toEqual([
        'parse: 3 of 9 scripts not parsed',
        'source-maps: 4 source maps unresolved',
        'graph: 1 relative imports name no file of the input',
      ]);
      expect(limitations).toContainEqual(expect.objectContaining({ kind: 'not-utf8', scope: 'file:latin1.js' }));
    });
  });

  it('should fail closed on a contradicted ASAR entry, and continue past it when asked', async () => {
    await withTempDir(async (tmp) => {
      const archive = await electronAsar(tmp);
      const bytes = readFileSync(archive);
      const at = bytes.indexOf('notes:save');
      expect(at).toBeGreaterThan(0);
      bytes.write('NOTES', at, 'latin1');
      writeFileSync(archive, bytes);
      const error = await failure(analyzeJavascriptApplication(archive));
      expect(error.code).toBe('artifact_integrity_mismatch');
      // The advice names this analysis, not the archive inventory it reads through.
      expect(error.message).toContain('rerun analyze_javascript_application with integrity_policy');
      expect(error.remediation).toContain('rerun analyze_javascript_application with integrity_policy');
      expect(`${error.message} ${error.remediation}`).not.toContain('inspect_artifact');
      const { result, coverage } = await analyzeJavascriptApplication(archive, {
        integrityPolicy: 'record-and-continue',
      });
      expect(result.integrity_contradictions.map((c) => c.path)).toEqual(['main.js']);
      expect(result.unknowns).toContainEqual(
        expect.objectContaining({ scope: 'file:main.js', kind: 'integrity-contradicted' }),
      );
      expect(result.modules.map((m) => m.path)).not.toContain('main.js');
      expect(result.ipc.map((i) => i.node_id)).not.toContain('file:main.js');
      expect(coverage.status).toBe('partial');
      expect(coverage.reasons).toContain('inventory: 1 integrity contradictions continued');
    });
  });

  it('should say when the input holds nothing the analysis reads, rather than answer an empty application', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'notes.txt'), 'hello\n');
      mkdirSync(join(tmp, 'empty'));
      for (const [input, says] of [
        ['notes.txt', 'The file is not a script, HTML page or package.json'],
        ['empty', 'The folder holds no script, HTML page or package.json'],
      ] as const) {
        const { result, limitations } = await analyzeJavascriptApplication(join(tmp, input));
        expect(result.assets).toEqual([]);
        expect(limitations).toContainEqual(expect.objectContaining({ kind: 'no-javascript', scope: 'application' }));
        expect(limitations.find((l) => l.kind === 'no-javascript')!.message).toContain(says);
      }
      // A folder with a script has none.
      writeFileSync(join(tmp, 'empty', 'main.js'), 'console.log(1);\n');
      const { limitations } = await analyzeJavascriptApplication(join(tmp, 'empty'));
      expect(limitations.map((l) => l.kind)).not.toContain('no-javascript');
    });
  });

  it('should refuse a missing path with not_found', async () => {
    await withTempDir(async (tmp) => {
      const error = await failure(analyzeJavascriptApplication(join(tmp, 'absent')));
      expect(error.code).toBe('not_found');
    });
  });

  it('should end a cancelled analysis with cancelled', async () => {
    await withTempDir(async (tmp) => {
      const archive = await electronAsar(tmp);
      const controller = new AbortController();
      let phases = 0;
      const run = analyzeJavascriptApplication(archive, {
        signal: controller.signal,
        onProgress: (_message, phase) => {
          phases += 1;
          if (phase === 'inventory') controller.abort();
        },
      });
      const error = await failure(run);
      expect(error.code).toBe('cancelled');
      expect(phases).toBeGreaterThan(0);
    });
  });
});

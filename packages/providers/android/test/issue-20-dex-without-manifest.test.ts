// DEX files in a ZIP with no AndroidManifest.xml (a multidex archive, an APK stripped of its manifest)
// are read, as dexdump reads them: the class tools list their classes, and inspect_android_package
// states that no manifest was read. A ZIP with neither a manifest nor a DEX file is still no package.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import { inspectAndroidPackageTool, searchAndroidClassesTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const MULTIDEX = `${SAMPLES}/tests/multidex/multidex.apk`;

type Search = { total: number; classes: { descriptor: string; dex: string }[] };

describe('DEX files in a ZIP without a manifest', () => {
  it('should list the classes of every DEX file, as dexdump does, and say no manifest was read', async () => {
    const expected = [...output('dexdump', [MULTIDEX]).matchAll(/Class descriptor {2}: '(.*)'/g)].map((m) => m[1]!);
    expect(expected.length).toBe(2);
    const { normalized_result, coverage } = await runTool<Search>(searchAndroidClassesTool, { path: MULTIDEX });
    expect(normalized_result.classes.map((c) => c.descriptor).sort()).toEqual(expected.sort());
    expect(new Set(normalized_result.classes.map((c) => c.dex))).toEqual(new Set(['classes.dex', 'classes2.dex']));
    expect(coverage.status).toBe('complete');
    const inspected = await runTool<{ units: { manifest: unknown; dex: unknown[] }[] }>(inspectAndroidPackageTool, {
      path: MULTIDEX,
    });
    expect(inspected.normalized_result.units[0]!.manifest).toBeNull();
    expect(inspected.normalized_result.units[0]!.dex).toHaveLength(2);
    expect(inspected.limitations.map((l) => l.kind)).toContain('manifest-missing');
  });

  it('should read a ZIP made here of one DEX file, and still refuse a ZIP with neither', async () => {
    await withTempDir(async (tmp) => {
      copyFileSync(`${SAMPLES}/tests/okhttp.d8.038.dex`, join(tmp, 'classes.dex'));
      writeFileSync(join(tmp, 'notes.txt'), 'no package here\n');
      execFileSync('zip', ['-q', join(tmp, 'dex.zip'), 'classes.dex'], { cwd: tmp });
      execFileSync('zip', ['-q', join(tmp, 'plain.zip'), 'notes.txt'], { cwd: tmp });
      const classes = output('dexdump', [join(tmp, 'classes.dex')]).match(/Class descriptor/g)!.length;
      const found = await runTool<Search>(searchAndroidClassesTool, { path: join(tmp, 'dex.zip'), limit: 2000 });
      expect(found.normalized_result.total).toBe(classes);
      await expect(runTool(searchAndroidClassesTool, { path: join(tmp, 'plain.zip') })).rejects.toMatchObject({
        code: 'unsupported_target',
      });
    });
  });
});

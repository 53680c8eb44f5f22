import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication, compareVersions } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { bundleSources, electronAsar, webpackBundle } from './helpers/fixtures.js';

describe('compareVersions on bundles and archives', () => {
  it('should match webpack modules renumbered between two production builds by content and structure', async () => {
    await withTempDir(async (tmp) => {
      const v1 = await webpackBundle(join(tmp, 'v1'), { out: 'app.js', mode: 'production', naturalIds: true });
      const sources = bundleSources(join(tmp, 'v2'));
      // A module used first renumbers the modules after it.
      writeFileSync(join(sources, 'extra.cjs'), "module.exports = require('path').sep;\n");
      const entry = join(sources, 'entry.js');
      writeFileSync(entry, `import sep from './extra.cjs';\nconsole.log(sep);\n${readFileSync(entry, 'utf8')}`);
      const v2 = await webpackBundle(join(tmp, 'v2'), { out: 'app.js', mode: 'production', naturalIds: true, sources });
      const [before, after] = [
        (await analyzeJavascriptApplication(v1)).result,
        (await analyzeJavascriptApplication(v2)).result,
      ];
      // v1: [, legacy (requires 2), os]; v2: [, extra (requires 2), path, legacy (requires 4), os].
      const id = (r: typeof before, builtin: string) =>
        r.bundled_modules.find((m) => m.builtins.includes(builtin))!.node_id;
      expect([id(before, 'os'), id(after, 'os'), id(after, 'path')]).toEqual([
        'bundled:app.js#2',
        'bundled:app.js#4',
        'bundled:app.js#2',
      ]);
      const result = compareVersions(before, after);
      expect(result.modules.added).toEqual(['bundled:app.js#1', 'bundled:app.js#2']);
      expect(result.modules.removed).toEqual([]);
      expect(result.modules.changed.filter((c) => c.before.startsWith('bundled:'))).toEqual([
        {
          before: 'bundled:app.js#1',
          after: 'bundled:app.js#3',
          matched_by: 'structure',
          changes: ['path', 'content'],
        },
        {
          before: 'bundled:app.js#2',
          after: 'bundled:app.js#4',
          matched_by: 'structure',
          changes: ['path', 'content'],
        },
      ]);
    });
  });

  it('should list a module whose bytes contradict their integrity as unknown, never unchanged or removed', async () => {
    await withTempDir(async (tmp) => {
      const good = await electronAsar(join(tmp, 'v1'));
      const bad = await electronAsar(join(tmp, 'v2'));
      const bytes = readFileSync(bad);
      // Same length, so only main.js's declared hash is contradicted.
      bytes.write('NOTES', bytes.indexOf('notes:save'), 'latin1');
      writeFileSync(bad, bytes);
      const options = { integrityPolicy: 'record-and-continue' as const };
      const before = (await analyzeJavascriptApplication(good, options)).result;
      const after = (await analyzeJavascriptApplication(bad, options)).result;
      const result = compareVersions(before, after);
      expect(result.modules.unknown).toEqual([{ node_id: 'file:main.js', reason: 'integrity-contradicted' }]);
      expect(result.modules.removed).toEqual([]);
      expect(result.modules.changed).toEqual([]);
      expect(result.assets.unknown).toEqual(['main.js']);
      expect(result.assets.changed).toEqual([]);
      // Same application otherwise: lib/util.js, preload.js, renderer.js.
      expect(result.modules.unchanged).toBe(3);
    });
  });
});

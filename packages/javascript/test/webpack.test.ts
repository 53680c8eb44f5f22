import { describe, expect, it } from '@jest/globals';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { webpackBundle } from './helpers/fixtures.js';

const requires = (result: JavascriptApplication, from: string) =>
  result.edges
    .filter((e) => e.from === from && e.kind === 'bundler-require')
    .map((e) => e.to)
    .sort();

describe('analyzeJavascriptApplication on webpack 5 bundles', () => {
  it('should recover the modules of a development build by path, with their edges and built-ins', async () => {
    await withTempDir(async (tmp) => {
      const bundle = await webpackBundle(tmp, { out: 'dev.js', mode: 'development' });
      const { result } = await analyzeJavascriptApplication(bundle);
      expect(result.modules.find((m) => m.path === 'dev.js')!.bundler).toBe('webpack');
      const node = (id: string) => `bundled:dev.js#${id}`;
      // The entry module is inlined in the bootstrap: its requires leave from the file itself.
      expect(result.bundled_modules.map((m) => m.module_id).sort()).toEqual(
        ['./greet.js', './legacy.cjs', 'node:crypto', 'os'].sort(),
      );
      expect(requires(result, 'file:dev.js')).toEqual(
        [node('./greet.js'), node('./legacy.cjs'), node('node:crypto')].sort(),
      );
      expect(requires(result, node('./legacy.cjs'))).toEqual([node('os')]);
      const builtins = (id: string) => result.bundled_modules.find((m) => m.module_id === id)!.builtins;
      expect(builtins('os')).toEqual(['os']);
      expect(builtins('node:crypto')).toEqual(['crypto']);
      expect(builtins('./greet.js')).toEqual([]);
      // webpack defines an ES module's exports with getters on its exports object.
      const exports = (id: string) => result.bundled_modules.find((m) => m.module_id === id)!.exports;
      expect(exports('./greet.js')).toEqual([{ name: 'greet', system: 'esm', value_kind: 'unknown', arity: null }]);
      expect(exports('./legacy.cjs')).toEqual([
        { name: 'prefix', system: 'commonjs', value_kind: 'value', arity: null },
      ]);
    });
  });

  it('should recover the numbered modules of a minified production build and the runtime require', async () => {
    await withTempDir(async (tmp) => {
      const bundle = await webpackBundle(tmp, { out: 'prod.js', mode: 'production' });
      const { result } = await analyzeJavascriptApplication(bundle);
      expect(result.modules.find((m) => m.path === 'prod.js')!.bundler).toBe('webpack');
      expect(result.bundled_modules.every((m) => /^\d+$/.test(m.module_id))).toBe(true);
      const os = result.bundled_modules.filter((m) => m.builtins.includes('os'));
      expect(os).toHaveLength(1);
      // legacy.cjs requires the os module; the inlined entry requires legacy.cjs through the runtime.
      const legacy = result.edges
        .filter((e) => e.kind === 'bundler-require' && e.to === os[0]!.node_id)
        .map((e) => e.from);
      expect(legacy).toHaveLength(1);
      expect(requires(result, 'file:prod.js')).toEqual(legacy);
      expect(result.unknowns).toContainEqual(
        expect.objectContaining({ scope: 'file:prod.js', kind: 'minified-without-source-map' }),
      );
    });
  });
});

import { describe, expect, it } from '@jest/globals';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { browserifyBundle } from './helpers/fixtures.js';

describe('analyzeJavascriptApplication on browserify bundles', () => {
  it('should recover the module table, its require edges and each module’s exports', async () => {
    await withTempDir(async (tmp) => {
      const { result, coverage } = await analyzeJavascriptApplication(await browserifyBundle(tmp));
      expect(coverage).toEqual({ status: 'complete', reasons: [] });
      expect(result.modules.map((m) => [m.path, m.bundler, m.exports])).toEqual([['bundle.js', 'browserify', []]]);
      // browserify numbers modules by sorted path: greet.js 1, main.js 2, util.js 3.
      const exports = result.bundled_modules.map((m) => [
        m.node_id,
        m.exports.map((e) => `${e.name}/${e.value_kind}/${e.arity}`),
      ]);
      expect(exports).toEqual([
        ['bundled:bundle.js#1', ['greet/function/1', 'LANG/value/null']],
        ['bundled:bundle.js#2', ['run/function/2']],
        ['bundled:bundle.js#3', ['shout/function/1']],
      ]);
      expect(result.edges.map((e) => [e.from, e.to, e.specifier, e.kind])).toEqual([
        ['bundled:bundle.js#2', 'bundled:bundle.js#1', './greet', 'bundler-require'],
        ['bundled:bundle.js#2', 'bundled:bundle.js#3', './util', 'bundler-require'],
      ]);
      expect(result.effects).toEqual([
        { node_id: 'bundled:bundle.js#3', line: expect.any(Number), column: 0, category: 'network', api: 'fetch' },
      ]);
    });
  });

  it('should read the inline source map of a debug bundle', async () => {
    await withTempDir(async (tmp) => {
      const { result } = await analyzeJavascriptApplication(await browserifyBundle(tmp, { debug: true }));
      expect(result.modules[0]!.source_map.status).toBe('inline');
      const names = result.source_modules.map((s) => s.source.split('/').at(-1)).sort();
      expect(names).toEqual(expect.arrayContaining(['greet.js', 'main.js', 'util.js']));
      expect(result.bundled_modules).toHaveLength(3);
    });
  });
});

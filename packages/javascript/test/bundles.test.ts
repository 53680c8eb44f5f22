import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { BUNDLE_SOURCES, esbuildBundle } from './helpers/fixtures.js';

describe('analyzeJavascriptApplication on esbuild bundles', () => {
  it('should recover the bundled modules, their edges and built-ins, and the map sources', async () => {
    await withTempDir(async (tmp) => {
      const bundle = await esbuildBundle(tmp, { out: 'app.js', sourcemap: true });
      const { result, coverage } = await analyzeJavascriptApplication(dirname(bundle));
      expect(coverage.status).toBe('complete');
      const file = result.modules.find((m) => m.path === 'app.js')!;
      expect(file.bundler).toBe('esbuild');
      expect(file.source_map).toEqual({
        status: 'external',
        reference: 'app.js.map',
        node_id: 'file:app.js.map',
        reason: null,
        source_count: 3,
      });
      const bundled = result.bundled_modules.map((m) => `${m.module_id} ${m.builtins.join(',')}`).sort();
      expect(bundled).toEqual(['entry.js crypto', 'greet.js ', 'legacy.cjs os']);
      const legacyExports = result.bundled_modules.find((m) => m.module_id === 'legacy.cjs')!.exports;
      expect(legacyExports).toEqual([{ name: 'prefix', system: 'commonjs', value_kind: 'value', arity: null }]);
      const legacy = 'bundled:app.js#legacy.cjs';
      const toLegacy = result.edges.filter((e) => e.to === legacy);
      expect(toLegacy.map((e) => [e.from, e.kind])).toEqual([['bundled:app.js#entry.js', 'bundler-require']]);
      const sources = result.source_modules.map((s) => [s.node_id, s.has_content]);
      expect(sources.map(([id]) => id).sort()).toEqual(
        ['entry.js', 'greet.js', 'legacy.cjs'].map(
          (name) => `source:app.js#${relative(dirname(bundle), join(BUNDLE_SOURCES, name))}`,
        ),
      );
      expect(sources.every(([, content]) => content === true)).toBe(true);
      const greet = result.source_modules.find((s) => s.source.endsWith('greet.js'))!;
      const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sourcesContent: string[]; sources: string[] };
      const index = map.sources.findIndex((s) => s.endsWith('greet.js'));
      const { createHash } = await import('node:crypto');
      expect(greet.content_sha256).toBe(createHash('sha256').update(map.sourcesContent[index]!).digest('hex'));
      expect(result.hosts).toEqual(['cdn.example.net']);
    });
  });

  it('should read an inline source map', async () => {
    await withTempDir(async (tmp) => {
      const bundle = await esbuildBundle(tmp, { out: 'inline.js', sourcemap: 'inline' });
      const { result } = await analyzeJavascriptApplication(dirname(bundle));
      const file = result.modules.find((m) => m.path === 'inline.js')!;
      expect(file.source_map).toMatchObject({ status: 'inline', node_id: null, source_count: 3 });
      expect(file.source_map.reference).toMatch(/^data:application\/json;base64,…$/);
    });
  });

  it('should name a minified bundle without a source map as an explicit unknown', async () => {
    await withTempDir(async (tmp) => {
      const bundle = await esbuildBundle(tmp, { out: 'min.js', minify: true });
      const { result } = await analyzeJavascriptApplication(bundle);
      expect(result.input_format).toBe('file');
      const file = result.modules.find((m) => m.path === 'min.js')!;
      expect(file.source_type).toBe('script');
      expect(file.builtins).toEqual(['crypto', 'os']);
      expect(file.source_map.status).toBe('none');
      expect(result.unknowns).toContainEqual(
        expect.objectContaining({ scope: 'file:min.js', kind: 'minified-without-source-map' }),
      );
    });
  });
});

// Rollup and Vite leave no runtime wrapper: the modules of their chunks come from the source maps and
// the bundler from its own markers. Each build here is made by the real bundler, and what the analysis
// recovers is checked against the bundler's own account of each chunk's modules.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';
import { build } from 'esbuild';
import { CHUNKED_SOURCES, rollupBuild, viteBuild } from './helpers/bundlers.js';
import type { BuiltBundle } from './helpers/bundlers.js';

let tmp: string;
const built: Record<string, BuiltBundle> = {};
const results: Record<string, JavascriptApplication> = {};

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rea-js-rollup-vite-'));
  built.rollup = await rollupBuild(join(tmp, 'mapped'), { sourcemap: true });
  built.rollupBare = await rollupBuild(join(tmp, 'bare'), { sourcemap: false });
  built.vite = await viteBuild(join(tmp, 'mapped'), { sourcemap: true, minify: true });
  built.viteBare = await viteBuild(join(tmp, 'bare'), { sourcemap: false, minify: false });
  built.viteMinBare = await viteBuild(join(tmp, 'min-bare'), { sourcemap: false, minify: true });
  // One source compiled to one file with a map (not a bundle): esbuild without bundling.
  const compiled = join(tmp, 'compiled');
  await build({
    entryPoints: [join(CHUNKED_SOURCES, 'lazy.js')],
    outdir: compiled,
    sourcemap: true,
    logLevel: 'silent',
  });
  built.compiled = { dir: compiled, chunks: new Map() };
  for (const [name, bundle] of Object.entries(built)) {
    results[name] = (await analyzeJavascriptApplication(bundle.dir)).result;
  }
}, 180_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The recovered modules of `chunk` as source paths relative to the sources the bundler read. */
function recovered(result: JavascriptApplication, chunk: string, sourcesFromOut: string): string[] {
  return result.bundled_modules
    .filter((m) => m.file === `file:${chunk}`)
    .map((m) => posix.relative(sourcesFromOut, posix.join(posix.dirname(chunk), m.module_id)))
    .sort();
}

/** The modules the bundler put in `chunk` that carry code of their own (not CSS, the HTML page or virtual helpers). */
const withCode = (bundle: BuiltBundle, chunk: string) =>
  bundle.chunks
    .get(chunk)!
    .filter((id) => /^[\w.-]+\.c?js$/.test(id))
    .sort();

const chunkNamed = (bundle: BuiltBundle, prefix: string) =>
  [...bundle.chunks.keys()].find((c) => posix.basename(c).startsWith(prefix))!;

describe('Rollup chunks', () => {
  it("should recover each chunk's modules from its source map, as Rollup lists them", () => {
    const result = results.rollup!;
    const main = chunkNamed(built.rollup!, 'main-');
    expect(built.rollup!.chunks.get(main)).toEqual(['util.js', 'greet.js', 'main.js']);
    expect(recovered(result, main, '../rollup-src')).toEqual(withCode(built.rollup!, main));
    const file = result.modules.find((m) => m.path === main)!;
    // Rollup's frozen namespace object (`import * as util`) names the bundler.
    expect(file.bundler).toBe('rollup');
    expect(result.bundled_modules.every((m) => m.bundler === 'rollup')).toBe(true);
  });

  it('should give each module the chunk exports it declares, under its own names', () => {
    const result = results.rollup!;
    const main = chunkNamed(built.rollup!, 'main-');
    const exports = (source: string) =>
      result.bundled_modules
        .find((m) => m.file === `file:${main}` && m.module_id.endsWith(`/${source}`))!
        .exports.map((e) => `${e.name}/${e.value_kind}/${e.arity}`)
        .sort();
    // The chunk exports whisper for the lazy chunk, and the entry's run and VERSION.
    expect(exports('util.js')).toEqual(['whisper/function/1']);
    expect(exports('main.js')).toEqual(['VERSION/value/null', 'run/function/1']);
    expect(exports('greet.js')).toEqual([]);
  });

  it('should link the chunks: the dynamic import from the module that makes it, the static import back', () => {
    const result = results.rollup!;
    const main = chunkNamed(built.rollup!, 'main-');
    const lazy = chunkNamed(built.rollup!, 'lazy-');
    const mainModule = result.bundled_modules.find(
      (m) => m.file === `file:${main}` && m.module_id.endsWith('/main.js'),
    )!;
    const edges = result.edges.map((e) => `${e.from} ${e.kind} ${e.to}`);
    expect(edges).toContain(`${mainModule.node_id} dynamic-import file:${lazy}`);
    // The lazy chunk imports whisper from the entry chunk: from the module using it to the one declaring it.
    const module = (chunk: string, source: string) =>
      result.bundled_modules.find((m) => m.file === `file:${chunk}` && m.module_id.endsWith(`/${source}`))!.node_id;
    expect(edges).toContain(`${module(lazy, 'lazy.js')} import ${module(main, 'util.js')}`);
    expect(edges).not.toContain(`file:${lazy} import file:${main}`);
    // The entry's facade re-exports run and VERSION, both declared by main.js of the entry chunk.
    const reexports = result.edges
      .filter((e) => e.from === 'file:main.js' && e.kind === 'export-from')
      .map((e) => e.to);
    expect(reexports).toEqual([mainModule.node_id]);
  });

  it('should list the one module of a chunk that holds one, like the modules of every other chunk', () => {
    const result = results.rollup!;
    const lazy = chunkNamed(built.rollup!, 'lazy-');
    // Rollup's lazy chunk holds lazy.js alone and no marker: the import of the entry chunk names it.
    expect(withCode(built.rollup!, lazy)).toEqual(['lazy.js']);
    expect(recovered(result, lazy, '../rollup-src')).toEqual(['lazy.js']);
    const module = result.bundled_modules.find((m) => m.file === `file:${lazy}`)!;
    expect(module.bundler).toBe('rollup');
    expect(module.exports.map((e) => `${e.name}/${e.value_kind}/${e.arity}`)).toEqual(['later/function/2']);
    // The sites inside it are its own, as they are in chunks of several modules.
    const fetches = result.effects.filter((e) => e.api === 'fetch' && e.node_id.includes(lazy));
    expect(fetches.map((e) => e.node_id)).toEqual([module.node_id]);
  });

  it('should not list the one source of a compiled file that no chunk links to', () => {
    const result = results.compiled!;
    expect(result.modules.map((m) => [m.path, m.bundler, m.source_map.source_count])).toEqual([['lazy.js', null, 1]]);
    expect(result.bundled_modules).toEqual([]);
    expect(result.effects.map((e) => e.node_id)).toEqual(['file:lazy.js']);
  });

  it('should name a chunk by its markers alone when there is no source map, recovering no module', () => {
    const result = results.rollupBare!;
    const main = chunkNamed(built.rollupBare!, 'main-');
    expect(result.modules.find((m) => m.path === main)!.bundler).toBe('rollup');
    expect(result.bundled_modules).toEqual([]);
  });
});

describe('Vite builds', () => {
  it("should recover each minified chunk's modules from its map, as Vite lists them, all named vite", () => {
    const result = results.vite!;
    for (const chunk of built.vite!.chunks.keys()) {
      expect(recovered(result, chunk, '../vite-src')).toEqual(withCode(built.vite!, chunk));
    }
    expect(result.modules.map((m) => [m.path, m.bundler]).sort()).toEqual(
      [...built.vite!.chunks.keys()].map((c) => [c, 'vite']).sort(),
    );
    expect(new Set(result.bundled_modules.map((m) => m.bundler))).toEqual(new Set(['vite']));
  });

  it('should resolve the minified import between chunks to the module using it and the one declaring it', () => {
    const result = results.vite!;
    const lazy = chunkNamed(built.vite!, 'lazy-');
    const entry = chunkNamed(built.vite!, 'index-');
    const module = (chunk: string, source: string) =>
      result.bundled_modules.find((m) => m.file === `file:${chunk}` && m.module_id.endsWith(`/${source}`))!.node_id;
    const imports = result.edges.filter((e) => e.kind === 'import').map((e) => `${e.from} ${e.to}`);
    expect(imports).toEqual([`${module(lazy, 'lazy.js')} ${module(entry, 'util.js')}`]);
  });

  it('should give minified declarations their source names from the map', () => {
    const result = results.vite!;
    const exports = (source: string) =>
      result.bundled_modules
        .find((m) => m.module_id.endsWith(`/${source}`))!
        .exports.map((e) => `${e.name}/${e.arity}`);
    expect(exports('util.js')).toEqual(['whisper/1']);
    expect(exports('lazy.js')).toEqual(['later/2']);
  });

  it("should turn Vite's preload list into edges to the lazy chunk and its stylesheet", () => {
    for (const [name, fromModule] of [
      ['vite', true],
      ['viteBare', false],
    ] as const) {
      const result = results[name]!;
      const bundle = built[name]!;
      const entry = chunkNamed(bundle, 'index-');
      const lazy = chunkNamed(bundle, 'lazy-');
      const css = result.assets.find((a) => a.kind === 'css')!;
      const from = fromModule
        ? result.bundled_modules.find((m) => m.file === `file:${entry}` && m.module_id.endsWith('/main.js'))!.node_id
        : `file:${entry}`;
      const preloads = result.edges.filter((e) => e.kind === 'preload').map((e) => [e.from, e.to, e.target_kind]);
      expect(preloads).toEqual([
        [from, `file:${lazy}`, 'module'],
        [from, css.node_id, 'module'],
      ]);
      expect(result.edges.map((e) => `${e.from} ${e.kind} ${e.to}`)).toContain(`${from} dynamic-import file:${lazy}`);
    }
  });

  it("should name the chunks of builds without maps by their markers and recover Rollup's CommonJS wrappers", () => {
    for (const [name, wrapper] of [
      ['viteBare', 'requireLegacy'],
      ['viteMinBare', null],
    ] as const) {
      const result = results[name]!;
      const bundle = built[name]!;
      expect(result.modules.map((m) => m.bundler)).toEqual(['vite', 'vite']);
      expect(dirname(result.modules[0]!.path)).toBe('assets');
      // Without a map only the CommonJS modules keep visible bounds: as many as Vite lists per chunk.
      for (const chunk of bundle.chunks.keys()) {
        const commonjs = bundle.chunks.get(chunk)!.filter((id) => /^[\w.-]+\.cjs$/.test(id));
        const wrapped = result.bundled_modules.filter((m) => m.file === `file:${chunk}`);
        expect(wrapped).toHaveLength(commonjs.length);
      }
      const [legacy] = result.bundled_modules;
      expect(legacy!.bundler).toBe('vite');
      if (wrapper !== null) expect(legacy!.module_id).toBe(wrapper);
      const lazy = `file:${chunkNamed(bundle, 'lazy-')}`;
      expect(result.edges.filter((e) => e.to === legacy!.node_id).map((e) => [e.from, e.kind])).toEqual([
        [lazy, 'bundler-require'],
      ]);
      expect(result.strings.find((s) => s.value === 'legacy:')).toBeDefined();
    }
  });
});

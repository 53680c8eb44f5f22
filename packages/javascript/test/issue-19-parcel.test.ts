// Parcel 2's runtime shapes, on bundles the real Parcel builds: modules registered with its runtime
// (scope hoisting, minified or not), the hoisted rest from the source map, and the module table of a
// build without scope hoisting. Checked against Parcel's own bundle graph (each bundle's assets and
// their public ids, the ids the runtime registers them under).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, posix } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';
import { parcelBuild } from './helpers/bundlers.js';

type Built = Awaited<ReturnType<typeof parcelBuild>>;
let tmp: string;
const built: Record<string, Built> = {};
const results: Record<string, JavascriptApplication> = {};

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rea-js-parcel-'));
  built.hoisted = await parcelBuild(join(tmp, 'hoisted'), { sourcemap: true, minify: false, hoist: true });
  built.minified = await parcelBuild(join(tmp, 'minified'), { sourcemap: false, minify: true, hoist: true });
  built.table = await parcelBuild(join(tmp, 'table'), { sourcemap: false, minify: false, hoist: false });
  for (const [name, bundle] of Object.entries(built)) {
    results[name] = (await analyzeJavascriptApplication(bundle.dir)).result;
  }
}, 240_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The file a recovered module stands for: by Parcel's public id, or by the map's source name. */
function fileOf(bundle: Built, moduleId: string): string {
  const path = bundle.publicIds.get(moduleId) ?? moduleId;
  return basename(path);
}

/** Per bundle, the files of its recovered modules, and those Parcel says it holds. */
function compare(name: string, only?: (moduleId: string) => boolean) {
  const bundle = built[name]!;
  const result = results[name]!;
  return [...bundle.chunks.keys()].sort().map((chunk) => ({
    chunk,
    recovered: result.bundled_modules
      .filter((m) => m.file === `file:${chunk}` && (only?.(m.module_id) ?? true))
      .map((m) => fileOf(bundle, m.module_id))
      .sort(),
    parcel: bundle.chunks
      .get(chunk)!
      .map((p) => basename(p))
      .sort(),
  }));
}

const edge = (result: JavascriptApplication, from: string, to: string) =>
  result.edges.find((e) => e.from === from && e.to === to && e.kind === 'bundler-require');

describe('Parcel bundles', () => {
  it('should recover registered modules by id and the hoisted ones from the map: every asset of each bundle', () => {
    for (const { recovered, parcel } of compare('hoisted')) expect(recovered).toEqual(parcel);
    const result = results.hoisted!;
    expect(new Set(result.modules.map((m) => m.bundler))).toEqual(new Set(['parcel']));
    // greet.js and main.js are hoisted (no runtime id), so their ids are the map's source names.
    const hoisted = result.bundled_modules.filter((m) => !built.hoisted!.publicIds.has(m.module_id));
    expect(hoisted.map((m) => posix.basename(m.module_id)).sort()).toEqual(['greet.js', 'main.js']);
  });

  it('should recover the registered modules of a minified bundle, with their exports', () => {
    const bundle = built.minified!;
    const result = results.minified!;
    const registered = result.bundled_modules.filter((m) => bundle.publicIds.has(m.module_id));
    for (const m of registered) {
      const chunk = m.file.slice('file:'.length);
      expect(bundle.chunks.get(chunk)!.map((p) => basename(p))).toContain(fileOf(bundle, m.module_id));
    }
    expect(
      registered
        .map((m) => fileOf(bundle, m.module_id))
        .filter((f) => !f.startsWith('runtime-'))
        .sort(),
    ).toEqual(['lazy.js', 'legacy.cjs', 'util.js']);
    // An entry with exports is emitted without a wrapping function: its hoisted names keep their hash
    // prefixes even minified, so the hoisted modules are bounded too and every asset is found.
    for (const chunk of bundle.chunks.keys()) {
      expect(result.bundled_modules.filter((m) => m.file === `file:${chunk}`)).toHaveLength(
        bundle.chunks.get(chunk)!.length,
      );
    }
    const hoisted = result.bundled_modules.filter((m) => !bundle.publicIds.has(m.module_id));
    expect(hoisted.map((m) => [m.file, /^[0-9a-f]{16}$/.test(m.module_id)])).toEqual([
      ['file:main.js', true],
      ['file:main.js', true],
    ]);
    const exports = (file: string) =>
      result.bundled_modules
        .find((m) => fileOf(bundle, m.module_id) === file)!
        .exports.map((e) => e.name)
        .sort();
    expect(exports('util.js')).toEqual(['shout', 'whisper']);
    expect(exports('lazy.js')).toEqual(['later']);
  });

  it('should name the exports of hoisted modules by what the bundle exports from their declarations', () => {
    const shapes = (m: { exports: { name: string; value_kind: string; arity: number | null }[] }) =>
      m.exports.map((e) => `${e.name}/${e.value_kind}/${e.arity}`).sort();
    // main.js exports run(name) and VERSION; greet.js exports greet, which no bundle exports by name.
    const minified = results.minified!;
    const byHash = minified.bundled_modules.filter((m) => /^[0-9a-f]{16}$/.test(m.module_id));
    expect(byHash.map(shapes).sort()).toEqual([[], ['VERSION/value/null', 'run/function/1']]);
    const mapped = results.hoisted!.bundled_modules;
    const bySource = (file: string) => mapped.find((m) => posix.basename(m.module_id) === file)!;
    expect(shapes(bySource('main.js'))).toEqual(['VERSION/value/null', 'run/function/1']);
    expect(shapes(bySource('greet.js'))).toEqual([]);
  });

  it('should follow a runtime require into the bundle that registers the module', () => {
    for (const name of ['hoisted', 'minified', 'table']) {
      const bundle = built[name]!;
      const result = results[name]!;
      const node = (file: string) => result.bundled_modules.find((m) => fileOf(bundle, m.module_id) === file)!;
      const lazy = node('lazy.js');
      const util = node('util.js');
      expect(lazy.file).not.toBe(util.file);
      expect(edge(result, lazy.node_id, util.node_id)).toBeDefined();
      expect(edge(result, lazy.node_id, node('legacy.cjs').node_id)).toBeDefined();
    }
  });

  it("should read the module table of a build without scope hoisting, with each factory's requires", () => {
    const bundle = built.table!;
    const result = results.table!;
    expect(new Set(result.modules.map((m) => m.bundler))).toEqual(new Set(['parcel']));
    for (const { chunk, recovered, parcel } of compare('table')) {
      // The lazy bundle's table also holds the empty stand-in of the stylesheet its bundle imports.
      expect(recovered).toEqual([...parcel, ...(chunk.startsWith('lazy') ? ['lazy.css'] : [])].sort());
    }
    const node = (file: string) => result.bundled_modules.find((m) => fileOf(bundle, m.module_id) === file)!;
    const main = node('main.js');
    const specifiers = result.edges.filter((e) => e.from === main.node_id && e.kind === 'bundler-require');
    expect(specifiers.map((e) => [e.specifier, e.to])).toEqual(
      expect.arrayContaining([
        ['./greet.js', node('greet.js').node_id],
        ['./util.js', node('util.js').node_id],
      ]),
    );
  });
});

// `export * from './util.mjs'` exports every name of util but `default` and the names the module
// exports itself; a name two such declarations give from different bindings is ambiguous and left out.
// Where util is an ES module of the application whose names are all known, its names are listed in
// place of `*`; where it is not (a package outside the input, a CommonJS module) or the modules export
// from each other, `*` stays with an unknown that says why. `export * as ns from` stays the one name ns.
// Node.js imports the modules as the reference; its module namespace lists the names sorted, while the
// analysis lists them in source order, each `*`'s names at its place in the order of the module it names.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { ExportShape, JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { nodeExports } from './helpers/nodeExports.js';

function write(dir: string, sources: Record<string, string>): void {
  for (const [name, source] of Object.entries(sources)) {
    const file = join(dir, name);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, source);
  }
}

const exportsOf = (result: JavascriptApplication, path: string): ExportShape[] =>
  result.modules.find((m) => m.path === path)!.exports;

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The shapes as Node.js observes them, sorted by name as a module namespace lists them. */
const asNode = (shapes: ExportShape[]) =>
  shapes.map((s) => ({ name: s.name, kind: s.value_kind, length: s.arity })).sort(byName);

const BARREL: Record<string, string> = {
  'index.mjs': [
    "export * from './util.mjs';",
    "export * from './nested/barrel.mjs';",
    "export * from './both.mjs';",
    'export function add(a, b) {',
    '  return a + b;',
    '}',
    '',
  ].join('\n'),
  // `add` is index's own: the star does not give it, and `default` is never given.
  'util.mjs': [
    'export function helper(a, b = 2) {',
    '  return a + b;',
    '}',
    'export class Calc {}',
    'export const add = 1;',
    'export default function main() {}',
    '',
  ].join('\n'),
  'nested/barrel.mjs': "export * from './leaf.mjs';\nexport const version = '1.0';\n",
  'nested/leaf.mjs': 'export function leaf(x, y, z) {\n  return x + y + z;\n}\n',
  // `clash` comes from two bindings (left out); `shared` is the same binding through both (kept once).
  'both.mjs': "export * from './left.mjs';\nexport * from './right.mjs';\n",
  'left.mjs': "export const clash = 1;\nexport * from './common.mjs';\nexport function onlyLeft(a) {}\n",
  'right.mjs': "export const clash = 2;\nexport * from './common.mjs';\n",
  'common.mjs': 'export function shared(a, b) {}\n',
};

describe('analyzeJavascriptApplication expanding export * from', () => {
  it("should list the names a barrel re-exports from the application's ES modules, as Node.js does", async () => {
    await withTempDir(async (tmp) => {
      write(tmp, BARREL);
      const { result, limitations } = await analyzeJavascriptApplication(tmp);
      const node = nodeExports(join(tmp, 'index.mjs'));
      expect(node.map((e) => e.name)).toEqual(['Calc', 'add', 'helper', 'leaf', 'onlyLeft', 'shared', 'version']);
      expect(asNode(exportsOf(result, 'index.mjs'))).toEqual(node);
      for (const path of ['nested/barrel.mjs', 'both.mjs', 'left.mjs'])
        expect(asNode(exportsOf(result, path))).toEqual(nodeExports(join(tmp, path)));
      // Source order: each star's names at its place, in the order of the module it names.
      expect(exportsOf(result, 'index.mjs').map((e) => e.name)).toEqual([
        'helper',
        'Calc',
        'leaf',
        'version',
        'shared',
        'onlyLeft',
        'add',
      ]);
      expect(exportsOf(result, 'index.mjs').every((e) => e.system === 'esm')).toBe(true);
      expect(limitations.filter((l) => l.kind === 'reexported-names-unknown')).toEqual([]);
    });
  });

  it('should keep export * as ns from as the one name ns', async () => {
    await withTempDir(async (tmp) => {
      write(tmp, {
        'index.mjs': "export * as tools from './util.mjs';\nexport const own = 1;\n",
        'util.mjs': 'export function helper(a) {}\n',
      });
      const { result } = await analyzeJavascriptApplication(tmp);
      const node = nodeExports(join(tmp, 'index.mjs'));
      expect(node).toEqual([
        { name: 'own', kind: 'value', length: null },
        { name: 'tools', kind: 'value', length: null },
      ]);
      expect(
        exportsOf(result, 'index.mjs')
          .map((e) => e.name)
          .sort(),
      ).toEqual(node.map((e) => e.name));
      expect(exportsOf(result, 'index.mjs')).toContainEqual({
        name: 'tools',
        system: 'esm',
        value_kind: 'reexport',
        arity: null,
      });
    });
  });

  it('should keep * with an unknown for a package, a CommonJS module and a cycle', async () => {
    await withTempDir(async (tmp) => {
      write(tmp, {
        'outside.mjs': "export * from 'left-pad';\nexport const own = 1;\n",
        'fromCjs.mjs': "export * from './legacy.cjs';\n",
        'legacy.cjs': 'exports.old = function old(a) {};\n',
        'a.mjs': "export * from './b.mjs';\nexport const a = 1;\n",
        'b.mjs': "export * from './a.mjs';\nexport const b = 2;\n",
      });
      const { result, limitations } = await analyzeJavascriptApplication(tmp);
      const star = { name: '*', system: 'esm', value_kind: 'reexport', arity: null };
      for (const path of ['outside.mjs', 'fromCjs.mjs', 'a.mjs', 'b.mjs'])
        expect(exportsOf(result, path)).toContainEqual(star);
      // Node.js does give the names across the cycle: the analysis only says it does not list them.
      expect(nodeExports(join(tmp, 'a.mjs')).map((e) => e.name)).toEqual(['a', 'b']);
      const unknown = limitations.filter((l) => l.kind === 'reexported-names-unknown');
      expect(unknown.map((l) => l.scope).sort()).toEqual([
        'file:a.mjs',
        'file:b.mjs',
        'file:fromCjs.mjs',
        'file:outside.mjs',
      ]);
      expect(unknown.find((l) => l.scope === 'file:outside.mjs')?.message).toMatch(/left-pad/);
      expect(unknown.find((l) => l.scope === 'file:fromCjs.mjs')?.message).toMatch(/CommonJS/);
    });
  });
});

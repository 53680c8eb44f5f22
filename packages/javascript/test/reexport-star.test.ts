// tsc compiles `export * from './util'` to `__exportStar(require("./util"), exports)`, which copies every
// name of util (but `default` and names the module already has) onto the module's exports. Where util
// is a module of the application, its names are the module's exports, as Node.js lists them; where it
// is not (a package outside the input) or its names depend on load order (a cycle), `*` stays with an
// unknown that says why. The TypeScript sources are compiled with the real compiler at test time, and
// Node.js loads the output as the reference.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { ExportShape, JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { nodeExports } from './helpers/nodeExports.js';

/** Compiles each TypeScript source to CommonJS into `dir`. */
function compile(dir: string, sources: Record<string, string>): void {
  for (const [name, source] of Object.entries(sources)) {
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 },
    });
    const file = join(dir, name.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, outputText);
  }
}

const exportsOf = (result: JavascriptApplication, path: string): ExportShape[] =>
  result.modules.find((m) => m.path === path)!.exports;

/** The shapes as Node.js observes them (a re-export's kind is that of what it re-exports). */
const asNode = (shapes: ExportShape[]) => shapes.map((s) => ({ name: s.name, kind: s.value_kind, length: s.arity }));

const BARREL: Record<string, string> = {
  'index.ts': [
    "export * from './util';",
    "export * from './types';",
    "export * from './nested/barrel';",
    'export function add(a: number, b: number): number {',
    '  return a + b;',
    '}',
    '',
  ].join('\n'),
  // `add` is index's own: __exportStar does not overwrite it, and `default` is never copied.
  'util.ts': [
    'export function helper(a: number, b = 2): number {',
    '  return a + b;',
    '}',
    'export class Calc {}',
    'export const add = 1;',
    'export default function main() {}',
    '',
  ].join('\n'),
  // Types only: compiled, it exports nothing.
  'types.ts': 'export interface Note {\n  id: string;\n}\n',
  'nested/barrel.ts': "export * from './leaf';\nexport const version = '1.0';\n",
  'nested/leaf.ts': 'export function leaf(x: number, y: number, z: number): number {\n  return x + y + z;\n}\n',
};

describe('analyzeJavascriptApplication expanding __exportStar', () => {
  it("should list the names a barrel re-exports from the application's modules, as Node.js does", async () => {
    await withTempDir(async (tmp) => {
      compile(tmp, BARREL);
      const { result, limitations } = await analyzeJavascriptApplication(tmp);
      const node = nodeExports(join(tmp, 'index.js'));
      expect(node.map((e) => e.name).sort()).toEqual(['Calc', 'add', 'helper', 'leaf', 'version']);
      expect(asNode(exportsOf(result, 'index.js'))).toEqual(node);
      expect(asNode(exportsOf(result, 'nested/barrel.js'))).toEqual(nodeExports(join(tmp, 'nested', 'barrel.js')));
      expect(limitations.filter((l) => l.kind === 'reexported-names-unknown')).toEqual([]);
    });
  });

  it('should keep * with an unknown for a module outside the application and for a cycle', async () => {
    await withTempDir(async (tmp) => {
      compile(tmp, {
        'outside.ts': "export * from 'left-pad';\nexport const own = 1;\n",
        'a.ts': "export * from './b';\nexport const a = 1;\n",
        'b.ts': "export * from './a';\nexport const b = 2;\n",
      });
      // tslib's helper, and a module named when the code runs.
      writeFileSync(
        join(tmp, 'computed.js'),
        "const { __exportStar } = require('tslib');\n__exportStar(require(process.env.PLUGIN), exports);\n",
      );
      const { result, limitations } = await analyzeJavascriptApplication(tmp);
      const star = { name: '*', system: 'commonjs', value_kind: 'reexport', arity: null };
      expect(exportsOf(result, 'outside.js')).toContainEqual(star);
      expect(exportsOf(result, 'a.js')).toContainEqual(star);
      expect(exportsOf(result, 'b.js')).toContainEqual(star);
      expect(exportsOf(result, 'computed.js')).toEqual([star]);
      const unknown = limitations.filter((l) => l.kind === 'reexported-names-unknown');
      expect(unknown.map((l) => l.scope).sort()).toEqual([
        'file:a.js',
        'file:b.js',
        'file:computed.js',
        'file:outside.js',
      ]);
      expect(unknown.find((l) => l.scope === 'file:outside.js')?.message).toMatch(/left-pad/);
      expect(unknown.find((l) => l.scope === 'file:computed.js')?.message).toMatch(/computed/);
    });
  });
});

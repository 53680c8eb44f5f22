import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { ExportShape, JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { nodeExports } from './helpers/nodeExports.js';

/** TypeScript sources compiled to CommonJS with the real compiler at test time. */
const TYPESCRIPT: Record<string, string> = {
  'index.ts': [
    "export * from './util';",
    "export { x } from './m';",
    'export function add(a: number, b: number): number {',
    '  return a + b;',
    '}',
    'export class Calc {}',
    "export const ver = '1';",
    '',
  ].join('\n'),
  'util.ts': [
    'export function helper(a: number, b = 2, { c }: { c?: number } = {}): number {',
    '  return a + b + (c ?? 0);',
    '}',
    'export async function late(x: number, ...rest: number[]): Promise<number> {',
    '  return x + rest.length;',
    '}',
    '',
  ].join('\n'),
  'm.ts': 'export const x = 1;\n',
};

const ESM = [
  'const obj = { destA: 1, destB: () => 2 };',
  'export const { destA, destB } = obj;',
  'export function helper(a, b = 2, { c } = {}) { return a + b + (c ?? 0); }',
  'export async function late(x, ...rest) { return x + rest.length; }',
  'export class Shape {}',
  '',
].join('\n');

const exportsOf = (result: JavascriptApplication, path: string): ExportShape[] =>
  result.modules.find((m) => m.path === path)!.exports;

/** REA's shapes as Node.js would observe them; `unknown` and `reexport` claim no kind. */
const byName = <T extends { name: string }>(items: T[]) => [...items].sort((a, b) => (a.name < b.name ? -1 : 1));

const observed = (shapes: ExportShape[]) =>
  shapes.map((s) => ({ name: s.name, kind: s.value_kind, length: s.arity })).sort((a, b) => (a.name < b.name ? -1 : 1));

describe('analyzeJavascriptApplication export shapes, checked against Node.js', () => {
  it('should read tsc CommonJS output (void 0 preamble, defineProperty and __exportStar re-exports) as Node.js does', async () => {
    await withTempDir(async (tmp) => {
      const app = join(tmp, 'app');
      mkdirSync(app);
      for (const [name, source] of Object.entries(TYPESCRIPT)) {
        const { outputText } = ts.transpileModule(source, {
          compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 },
        });
        writeFileSync(join(app, name.replace(/\.ts$/, '.js')), outputText);
      }
      const { result } = await analyzeJavascriptApplication(app);
      const index = exportsOf(result, 'index.js');
      const util = exportsOf(result, 'util.js');
      // __exportStar copies util's names onto index's exports, where Node.js lists them.
      expect(index.map((s) => s.name)).not.toContain('*');
      expect(index.find((s) => s.name === 'x')).toEqual({
        name: 'x',
        system: 'commonjs',
        value_kind: 'reexport',
        arity: null,
      });
      // Object.keys' order: util's names where __exportStar copies them.
      const node = nodeExports(join(app, 'index.js'));
      expect(index.map((s) => s.name)).toEqual(node.map((e) => e.name));
      const definite = index.filter((s) => s.name !== 'x');
      expect(observed(definite)).toEqual(byName(node.filter((e) => e.name !== 'x')));
      expect(observed(util)).toEqual(byName(nodeExports(join(app, 'util.js'))));
    });
  });

  it("should give ES module functions Function.length and list destructured exports' names", async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'shapes.mjs'), ESM);
      const { result } = await analyzeJavascriptApplication(tmp);
      const shapes = exportsOf(result, 'shapes.mjs');
      const node = byName(nodeExports(join(tmp, 'shapes.mjs')));
      expect(shapes.map((s) => s.name).sort()).toEqual(node.map((e) => e.name));
      // What a destructured name holds is not read: it is listed without a kind.
      const definite = shapes.filter((s) => s.value_kind !== 'unknown');
      expect(definite.map((s) => s.name).sort()).toEqual(['Shape', 'helper', 'late']);
      expect(observed(definite)).toEqual(node.filter((e) => definite.some((s) => s.name === e.name)));
    });
  });
});

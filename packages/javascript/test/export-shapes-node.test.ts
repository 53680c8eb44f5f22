import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { ExportShape, JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

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

/** One export as Node.js sees it: class, function (with its length) or value. */
interface Observed {
  name: string;
  kind: 'function' | 'class' | 'value';
  length: number | null;
}

/** What Node.js itself says the module at `file` exports (Object.keys in its order, typeof, Function.length). */
function nodeExports(file: string): Observed[] {
  const script = `
    const ns = ${file.endsWith('.mjs') ? `await import(${JSON.stringify(pathToFileURL(file).href)})` : `(await import('node:module')).createRequire(${JSON.stringify(file)})(${JSON.stringify(file)})`};
    const out = Object.keys(ns).map((name) => {
      const v = ns[name];
      const kind = typeof v !== 'function' ? 'value' : /^class\\b/.test(Function.prototype.toString.call(v)) ? 'class' : 'function';
      return { name, kind, length: kind === 'function' ? v.length : null };
    });
    console.log(JSON.stringify(out));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as Observed[];
}

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
      // The compiled index re-exports util's names: every name Node.js lists is index's own or util's.
      expect(index).toContainEqual({ name: '*', system: 'commonjs', value_kind: 'reexport', arity: null });
      expect(index.find((s) => s.name === 'x')).toEqual({
        name: 'x',
        system: 'commonjs',
        value_kind: 'reexport',
        arity: null,
      });
      // Object.keys' order: util's names where __exportStar copies them.
      const listed = index.flatMap((s) => (s.name === '*' ? util : [s]));
      const node = nodeExports(join(app, 'index.js'));
      expect(listed.map((s) => s.name)).toEqual(node.map((e) => e.name));
      const definite = listed.filter((s) => s.name !== 'x');
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

// The exports of each module of a minified bundle. esbuild's `__commonJS` wrapper passes a module its
// exports and module objects as parameters, and webpack's factory (module, exports, require); minified,
// they are renamed (`p((e,t)=>{e.add=…;t.exports=…})`), and each module still lists what it exports.
// The bundles are built at test time with the real esbuild and webpack, and what Node.js gives for each
// original file (`Object.keys(require(file))`, `typeof`, `.length`) is the reference.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { ExportShape, JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { webpackBundle } from './helpers/fixtures.js';
import { nodeExports } from './helpers/nodeExports.js';

/**
 * Each module has a fetch that never runs (the variable is never set), so a site of the bundle tells
 * which source it comes from.
 */
const mark = (name: string) => `if (process.env.NEVER_SET_${name}) fetch('https://${name}.example/');\n`;
const SOURCES: Record<string, string> = {
  'entry.js': `${mark('entry')}${['a', 'b', 'c', 'd', 'e'].map((m) => `console.log(require('./${m}'));`).join('\n')}\n`,
  'a.js':
    mark('a') +
    'exports.add = (x, y) => x + y;\nexports.name = "a";\nfunction helper(p, q, r) {\n  return p + q + r;\n}\n' +
    'exports.helper = helper;\nclass Shape {}\nexports.Shape = Shape;\n',
  // module.exports replaces the object exports.gone was set on.
  'b.js': `${mark('b')}exports.gone = 1;\nmodule.exports = { sum: 3, mul(x, y) {\n  return x * y;\n} };\n`,
  // tsc's output: a non-enumerable __esModule, the void 0 preamble, defineProperty with enumerable: true.
  'c.js':
    '"use strict";\n' +
    mark('c') +
    'Object.defineProperty(exports, "__esModule", { value: true });\nexports.twice = void 0;\n' +
    'function twice(x) {\n  return x * 2;\n}\nexports.twice = twice;\n' +
    'Object.defineProperty(exports, "hidden", { enumerable: false, value: 1 });\n' +
    'Object.defineProperty(exports, "shown", { enumerable: true, value: 2 });\n',
  // A function as the module, exports pointed at it.
  'd.js': `${mark('d')}exports = module.exports = function main(a, b) {\n  return a + b;\n};\nexports.extra = 1;\n`,
  // exports passed to a function: what it sets is not followed.
  'e.js': `${mark('e')}Object.assign(exports, JSON.parse('{"late":1}'));\nexports.early = 2;\n`,
};

function writeSources(dir: string): string {
  const src = join(dir, 'src');
  mkdirSync(src);
  for (const [name, text] of Object.entries(SOURCES)) writeFileSync(join(src, name), text);
  return src;
}

/** Each bundled module's exports, by the source its fetch site names. */
function exportsBySource(result: JavascriptApplication, text: string) {
  const sourceOf = new Map<string, string>();
  for (const effect of result.effects) {
    const line = text.split('\n')[effect.line - 1]!;
    const host = /^fetch\("https:\/\/(\w+)\.example\//.exec(line.slice(effect.column))?.[1];
    if (host !== undefined) sourceOf.set(effect.node_id, `${host}.js`);
  }
  const out = new Map<string, ExportShape[]>();
  for (const m of result.bundled_modules) {
    const source = sourceOf.get(m.node_id);
    if (source !== undefined) out.set(source, m.exports);
  }
  return { out, sourceOf };
}

/** Checks the exports listed for each module of the bundle against Node.js on the original files. */
function checkAgainstNode(result: JavascriptApplication, text: string, src: string): void {
  const { out, sourceOf } = exportsBySource(result, text);
  expect([...out.keys()].filter((s) => s !== 'entry.js').sort()).toEqual(['a.js', 'b.js', 'c.js', 'd.js', 'e.js']);
  const asNode = (shapes: ExportShape[]) => shapes.map((s) => ({ name: s.name, kind: s.value_kind, length: s.arity }));
  for (const name of ['a.js', 'b.js', 'c.js']) {
    expect({ name, exports: asNode(out.get(name)!) }).toEqual({ name, exports: nodeExports(join(src, name)) });
  }
  // A function as the module: its own shape, then the names Node.js lists on it.
  const d = out.get('d.js')!;
  const main = createRequire(import.meta.url)(join(src, 'd.js')) as (a: number, b: number) => number;
  expect(d[0]).toMatchObject({ name: 'module.exports', value_kind: 'function', arity: main.length });
  expect(asNode(d.slice(1))).toEqual(nodeExports(join(src, 'd.js')));
  // exports passed on: what is listed Node.js lists too, and the module says the rest is not followed.
  const e = out.get('e.js')!;
  const eNode = nodeExports(join(src, 'e.js'));
  expect(asNode(e).every((shape) => eNode.some((n) => n.name === shape.name))).toBe(true);
  expect(e.length).toBeLessThan(eNode.length);
  const notFollowed = result.unknowns
    .filter((u) => u.kind === 'exports-not-followed')
    .map((u) => sourceOf.get(u.scope));
  expect(notFollowed).toEqual(['e.js']);
}

describe('analyzeJavascriptApplication lists the exports of the modules of a minified bundle', () => {
  it('should list each esbuild --minify wrapper module’s exports as Node.js gives them for its source', async () => {
    await withTempDir(async (tmp) => {
      const src = writeSources(tmp);
      const outfile = join(tmp, 'dist', 'app.js');
      await build({
        entryPoints: [join(src, 'entry.js')],
        bundle: true,
        minify: true,
        platform: 'node',
        outfile,
        logLevel: 'silent',
        absWorkingDir: tmp,
      });
      const text = readFileSync(outfile, 'utf8');
      // The wrappers' parameters are renamed: no `exports` or `module` is left to match by name.
      expect(text).not.toMatch(/\bexports\.(?:add|sum|twice|extra|early)\b/);
      const { result } = await analyzeJavascriptApplication(join(tmp, 'dist'));
      checkAgainstNode(result, text, src);
    });
  });

  it('should list each minified webpack factory module’s exports as Node.js gives them for its source', async () => {
    await withTempDir(async (tmp) => {
      const src = writeSources(tmp);
      await webpackBundle(tmp, { out: 'app.js', mode: 'production', sources: src });
      const text = readFileSync(join(tmp, 'dist', 'app.js'), 'utf8');
      expect(text).not.toMatch(/\bexports\.(?:add|sum|twice|extra|early)\b/);
      const { result } = await analyzeJavascriptApplication(join(tmp, 'dist'));
      checkAgainstNode(result, text, src);
    });
  });
});

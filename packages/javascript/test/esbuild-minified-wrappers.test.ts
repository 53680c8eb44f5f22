// esbuild --minify drops the module paths its `__commonJS`/`__esm` wrappers are keyed by and renames the
// helpers: `var p=(t,e)=>()=>{try{return e||t((e={exports:{}}).exports,e),e.exports}catch(c){…}}` and
// `var o=p(n=>{…})`. Each wrapper is still one module of the bundle, and each call of one (`o()`) a
// require of it. The bundle is built at test time with the real esbuild, and its metafile (the input
// files and the requires between them) is the reference for the split.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

/** Each source fetches a URL naming it, so a site of the bundle tells which source it comes from. */
const SOURCES: Record<string, string> = {
  'entry.js':
    "fetch('https://entry.example/');\nconst a = require('./a');\nconst b = require('./b');\nconsole.log(a.add(1, 2), b.sum);\n",
  'a.js': "fetch('https://a.example/');\nexports.add = (x, y) => x + y;\n",
  'b.js':
    "fetch('https://b.example/');\nconst a = require('./a');\nconst { twice } = require('./c');\nconst d = require('./d');\nmodule.exports = { sum: a.add(1, 2), t: twice(d.n) };\n",
  // An ES module required by a CommonJS one: esbuild wraps it with __esm.
  'c.js': "fetch('https://c.example/');\nexport function twice(x) {\n  return x * 2;\n}\n",
  'd.js': "fetch('https://d.example/');\nmodule.exports = { n: 2 };\n",
};

/** Bundles {@link SOURCES} (written to `<dir>/src`) with `--minify` into `<dir>/dist/app.js`. */
async function minifiedBundle(dir: string, sourcemap: boolean) {
  const src = join(dir, 'src');
  mkdirSync(src);
  for (const [name, text] of Object.entries(SOURCES)) writeFileSync(join(src, name), text);
  const outfile = join(dir, 'dist', 'app.js');
  const { metafile } = await build({
    entryPoints: [join(src, 'entry.js')],
    bundle: true,
    minify: true,
    sourcemap,
    platform: 'node',
    outfile,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: dir,
  });
  return { outfile, metafile };
}

describe('analyzeJavascriptApplication on a minified esbuild bundle', () => {
  it('should recover one module per wrapped input and an edge per require, as the metafile lists them', async () => {
    await withTempDir(async (tmp) => {
      const { outfile, metafile } = await minifiedBundle(tmp, false);
      const text = readFileSync(outfile, 'utf8');
      // What the metafile says: every input but the entry is wrapped, and who requires whom.
      const inputs = Object.keys(metafile.inputs).map((path) => basename(path));
      expect(inputs.sort()).toEqual(Object.keys(SOURCES).sort());
      const requires = Object.entries(metafile.inputs).flatMap(([from, input]) =>
        input.imports.filter((i) => i.kind === 'require-call').map((i) => `${basename(from)} -> ${basename(i.path)}`),
      );
      expect(requires).toHaveLength(5);

      const { result } = await analyzeJavascriptApplication(join(tmp, 'dist'));
      const file = result.modules.find((m) => m.path === 'app.js')!;
      expect(file.bundler).toBe('esbuild');
      // Which source each module is, by the URL its fetch site names (one line: the column is the offset).
      const sourceOf = new Map<string, string>([[file.node_id, 'entry.js']]);
      for (const effect of result.effects) {
        const host = /^fetch\("https:\/\/(\w+)\.example\//.exec(text.slice(effect.column))?.[1];
        if (host !== undefined) sourceOf.set(effect.node_id, `${host}.js`);
      }
      const modules = result.bundled_modules.map((m) => sourceOf.get(m.node_id));
      expect(modules.sort()).toEqual(inputs.filter((name) => name !== 'entry.js').sort());
      const edges = result.edges
        .filter((e) => e.kind === 'bundler-require')
        .map((e) => `${sourceOf.get(e.from)} -> ${sourceOf.get(e.to!)}`);
      expect(edges.sort()).toEqual(requires.sort());
    });
  });

  it('should name each module after its source when the bundle has a source map, the entry included', async () => {
    await withTempDir(async (tmp) => {
      const { metafile } = await minifiedBundle(tmp, true);
      const { result } = await analyzeJavascriptApplication(join(tmp, 'dist'));
      // The map names each input relative to the bundle, in dist/.
      const sources = Object.keys(metafile.inputs).map((path) => `../${path}`);
      expect(result.bundled_modules.map((m) => m.module_id).sort()).toEqual(sources.sort());
      const idOf = new Map(result.bundled_modules.map((m) => [m.node_id, m.module_id]));
      const requires = Object.entries(metafile.inputs).flatMap(([from, input]) =>
        input.imports.filter((i) => i.kind === 'require-call').map((i) => `../${from} -> ../${i.path}`),
      );
      const edges = result.edges
        .filter((e) => e.kind === 'bundler-require')
        .map((e) => `${idOf.get(e.from)} -> ${idOf.get(e.to!)}`);
      expect(edges.sort()).toEqual(requires.sort());
    });
  });
});

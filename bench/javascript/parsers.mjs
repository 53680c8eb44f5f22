// Parser comparison: parse time and peak RSS of oxc-parser, meriyah and acorn on the same large real
// JavaScript files, each (parser, file) pair in a fresh Node process so peak RSS belongs to that parse
// alone. The inputs are bundles already installed in this workspace (TypeScript's compiler, Playwright's
// core bundle, Prettier's minified Flow parser, Rollup). Prints a table; lower is better.
// Usage: node bench/javascript/parsers.mjs [--runs R]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const store = join(here, '..', '..', 'node_modules', '.pnpm');
const args = process.argv.slice(2);
const at = args.indexOf('--runs');
const RUNS = at >= 0 ? Number(args[at + 1]) : 3;

/** The first installed copy of `relative` under a store folder whose name starts with `prefix`. */
function installed(prefix, relative) {
  for (const folder of readdirSync(store)
    .filter((name) => name.startsWith(prefix))
    .sort()) {
    const file = join(store, folder, 'node_modules', relative);
    try {
      if (statSync(file).isFile()) return file;
    } catch {
      // not in this copy
    }
  }
  return null;
}

const inputs = [
  ['typescript.js', installed('typescript@', 'typescript/lib/typescript.js')],
  ['playwright coreBundle.js', installed('playwright@', 'playwright-core/lib/coreBundle.js')],
  ['prettier flow.mjs (minified)', installed('prettier@3', 'prettier/plugins/flow.mjs')],
  ['rollup.js', installed('rollup@', 'rollup/dist/shared/rollup.js')],
].filter(([, file]) => file !== null);

const PARSERS = ['oxc-parser', 'meriyah', 'acorn'];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(`runs per pair: ${RUNS} (median); each run in a fresh process`);
console.log('| file | MB | parser | parse ms | peak RSS MB | top-level statements |');
console.log('|---|---|---|---|---|---|');
for (const [label, file] of inputs) {
  const mb = (statSync(file).size / 1024 / 1024).toFixed(1);
  for (const parser of PARSERS) {
    const samples = [];
    for (let run = 0; run < RUNS; run += 1) {
      const child = spawnSync(process.execPath, [join(here, 'parseOne.mjs'), parser, file], { encoding: 'utf8' });
      if (child.status !== 0) {
        samples.push({ error: (child.stderr || child.stdout).split('\n')[0] });
        break;
      }
      samples.push(JSON.parse(child.stdout));
    }
    if (samples.some((sample) => sample.error)) {
      console.log(`| ${label} | ${mb} | ${parser} | failed: ${samples.find((s) => s.error).error} | | |`);
      continue;
    }
    const ms = median(samples.map((s) => s.ms)).toFixed(0);
    const rss = median(samples.map((s) => s.peakRssMb)).toFixed(0);
    console.log(`| ${label} | ${mb} | ${parser} | ${ms} | ${rss} | ${samples[0].statements} |`);
  }
}

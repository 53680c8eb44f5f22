// Application analysis against its floor: the whole analyze_javascript_application pipeline over a
// directory of large real bundles installed in this workspace, against a bare meriyah parse of the
// same files, each in a fresh process (time and peak RSS). Prints the ratio analysis / bare parse.
// The parser comparison that chose meriyah is parsers.mjs; hostile nesting per parser is hostile.mjs.
// Needs the built @rea/javascript. Usage: node bench/javascript/run.mjs [--runs R]
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const store = join(here, '..', '..', 'node_modules', '.pnpm');
const args = process.argv.slice(2);
const at = args.indexOf('--runs');
const RUNS = at >= 0 ? Number(args[at + 1]) : 3;

if (args[0] === '--one') {
  // One measured run in this process: node run.mjs --one <analysis|parse> <dir>
  const [, mode, dir] = args;
  const { performance } = await import('node:perf_hooks');
  const files = readdirSync(dir).map((name) => join(dir, name));
  const start = performance.now();
  if (mode === 'analysis') {
    const { analyzeJavascriptApplication } = await import('@rea/javascript');
    await analyzeJavascriptApplication(dir);
  } else {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('meriyah');
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      try {
        parse(source, { module: file.endsWith('.mjs'), next: true, ranges: true, loc: true, webcompat: true });
      } catch {
        parse(source, { module: !file.endsWith('.mjs'), next: true, ranges: true, loc: true, webcompat: true });
      }
    }
  }
  const ms = performance.now() - start;
  process.stdout.write(JSON.stringify({ ms, peakRssMb: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

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

const work = mkdtempSync(join(tmpdir(), 'rea-bench-javascript-'));
try {
  const inputs = [
    installed('typescript@', 'typescript/lib/typescript.js'),
    installed('playwright@', 'playwright-core/lib/coreBundle.js'),
    installed('prettier@3', 'prettier/plugins/flow.mjs'),
    installed('rollup@', 'rollup/dist/shared/rollup.js'),
  ].filter((file) => file !== null);
  let total = 0;
  for (const file of inputs) {
    copyFileSync(file, join(work, basename(file)));
    total += statSync(file).size;
  }
  console.log(
    `${inputs.length} files, ${(total / 1024 / 1024).toFixed(1)} MB; ${RUNS} runs each (median), fresh process per run`,
  );
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const measured = {};
  for (const mode of ['parse', 'analysis']) {
    const samples = [];
    for (let run = 0; run < RUNS; run += 1) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--one', mode, work], {
        encoding: 'utf8',
      });
      if (child.status !== 0) throw new Error(`${mode} failed: ${child.stderr}`);
      samples.push(JSON.parse(child.stdout));
    }
    measured[mode] = { ms: median(samples.map((s) => s.ms)), rss: median(samples.map((s) => s.peakRssMb)) };
    console.log(
      `${mode.padEnd(8)} ${(measured[mode].ms / 1000).toFixed(2)} s, peak RSS ${measured[mode].rss.toFixed(0)} MB`,
    );
  }
  console.log(
    `analysis / bare parse: ${(measured.analysis.ms / measured.parse.ms).toFixed(2)}x time, ${(measured.analysis.rss / measured.parse.rss).toFixed(2)}x peak RSS`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

// Application analysis on real packages fetched from the npm registry at bench time, against its floor:
// the whole analyze_javascript_application pipeline (in process, without the worker's start) and a
// bare meriyah parse of the same scripts, interleaved, each run a fresh process. Prints per package the
// medians of time and peak RSS, the ratio of the medians, and the load average around the runs.
// Targets: a 10+ MB UI distribution in under 20 s and 1 GiB; analysis within 3x of the bare parse.
// The parser comparison that chose meriyah is parsers.mjs; hostile nesting per parser is hostile.mjs.
// Needs the built @rea/javascript and npm with registry access.
// Usage: node bench/javascript/run.mjs [--runs R]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const at = args.indexOf('--runs');
const RUNS = at >= 0 ? Number(args[at + 1]) : 5;

/** The scripts of a tree (what both the analysis and the bare parse read). */
function scripts(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.[cm]?js$/i.test(entry.name)) out.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return out.sort();
}

if (args[0] === '--one') {
  // One measured run in this process: node run.mjs --one <analysis|parse> <input> <scripts-dir>
  const [, mode, input, tree] = args;
  const { performance } = await import('node:perf_hooks');
  const start = performance.now();
  let coverage = null;
  if (mode === 'analysis') {
    const { analyzeJavascriptApplication } = await import('@rea/javascript');
    coverage = (await analyzeJavascriptApplication(input)).coverage.status;
  } else {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('meriyah');
    for (const file of scripts(tree)) {
      const source = readFileSync(file, 'utf8');
      const options = { next: true, ranges: true, loc: true, webcompat: true };
      try {
        parse(source, { ...options, module: file.endsWith('.mjs') });
      } catch {
        try {
          parse(source, { ...options, module: !file.endsWith('.mjs') });
        } catch {
          // unparsable here too: the analysis records it as an unknown
        }
      }
    }
  }
  const ms = performance.now() - start;
  process.stdout.write(JSON.stringify({ ms, peakRssMb: process.resourceUsage().maxRSS / 1024, coverage }));
  process.exit(0);
}

const PACKAGES = [
  // A UI distribution with source maps (its build/ and legacy/build/ folders).
  { spec: 'pdfjs-dist@6.5.438', input: (root) => root, what: 'UI distribution with source maps' },
  // A library of hundreds of modules.
  { spec: 'lodash@4.17.21', input: (root) => root, what: 'library of hundreds of modules' },
  // An Electron-style ASAR (no Electron app on the registry ships one): typescript's lib packed as one.
  {
    spec: 'typescript@5.6.3',
    input: (root, work) => packAsar(join(root, 'lib'), join(work, 'app.asar')),
    what: 'ASAR made of typescript/lib',
  },
];

async function packAsar(dir, file) {
  const asar = await import('@electron/asar');
  await asar.createPackage(dir, file);
  return file;
}

const work = mkdtempSync(join(tmpdir(), 'rea-bench-javascript-'));
const here = fileURLToPath(import.meta.url);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const load = () => loadavg()[0].toFixed(2);
try {
  console.log(`${RUNS} interleaved runs per package (parse, analysis, parse, …), fresh process per run; medians`);
  for (const pkg of PACKAGES) {
    const dir = join(work, pkg.spec.replace(/[@/]/g, '_'));
    mkdirSync(dir);
    const tarball = execFileSync('npm', ['pack', pkg.spec, '--silent', '--pack-destination', dir], {
      encoding: 'utf8',
      cwd: dir,
    }).trim();
    execFileSync('tar', ['-xzf', join(dir, tarball.split('\n').at(-1)), '-C', dir]);
    const root = join(dir, 'package');
    const input = await pkg.input(root, dir);
    const files = scripts(root);
    const size = files.reduce((sum, f) => sum + statSync(f).size, 0);
    const before = load();
    const samples = { parse: [], analysis: [] };
    for (let run = 0; run < RUNS; run += 1) {
      for (const mode of ['parse', 'analysis']) {
        const child = spawnSync(process.execPath, [here, '--one', mode, input, root], { encoding: 'utf8' });
        if (child.status !== 0) throw new Error(`${pkg.spec} ${mode} failed: ${child.stderr}`);
        samples[mode].push(JSON.parse(child.stdout));
      }
    }
    const m = (mode, key) => median(samples[mode].map((s) => s[key]));
    console.log(
      `${pkg.spec} (${pkg.what}): ${files.length} scripts, ${(size / 1024 / 1024).toFixed(1)} MB; load ${before} -> ${load()}`,
    );
    for (const mode of ['parse', 'analysis']) {
      console.log(
        `  ${mode.padEnd(8)} ${(m(mode, 'ms') / 1000).toFixed(2)} s, peak RSS ${m(mode, 'peakRssMb').toFixed(0)} MB` +
          (mode === 'analysis' ? `, coverage ${samples.analysis.map((s) => s.coverage).join('/')}` : ''),
      );
    }
    console.log(
      `  analysis / bare parse (ratio of medians): ${(m('analysis', 'ms') / m('parse', 'ms')).toFixed(2)}x time, ${(m('analysis', 'peakRssMb') / m('parse', 'peakRssMb')).toFixed(2)}x peak RSS`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

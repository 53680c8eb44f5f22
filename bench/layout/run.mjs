// @rea/artifact binary layout benchmark, against llvm-readobj on the same file in the same run:
// the largest ELF shared library on the machine, parsed by
//   (a) parseBinaryLayoutFile (reads only the headers and tables it needs), in process and in a fresh
//       Node process (so that process start-up is counted as it is for llvm-readobj);
//   (b) parseBinaryLayout on the whole file read into memory;
//   (c) the inspect_binary_layout tool end to end (SHA-256 of the file, parse, normalized result,
//       sealed Evidence);
// vs `llvm-readobj --sections --symbols` (the reference named by the target) and
// `llvm-readobj --sections --symbols --dyn-symbols` (the same tables REA reads).
// Target: the layout parse within 2x of llvm-readobj --sections --symbols. Both wall-clock and CPU time
// are printed: on a loaded shared host CPU time is the steadier comparison.
// Usage: node bench/layout/run.mjs [path]
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectBinaryLayoutTool, parseBinaryLayout, parseBinaryLayoutFile } from '@rea/artifact';
import { sealEvidence } from '@rea/evidence';

const RUNS = 7;
const here = dirname(fileURLToPath(import.meta.url));

function isElf(path) {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    closeSync(fd);
  }
}

/** The largest ELF shared object under the usual library directories (symlinks not followed). */
function largestSharedLibrary() {
  let best = null;
  const walk = (dir, depth) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 4) walk(path, depth + 1);
      else if (entry.isFile() && /\.so(\.|$)/.test(entry.name)) {
        const { size } = statSync(path);
        if ((!best || size > best.size) && isElf(path)) best = { path, size };
      }
    }
  };
  for (const root of ['/usr/lib', '/usr/lib64', '/lib', '/usr/local/lib']) walk(root, 0);
  return best;
}

const summarize = (samples) => {
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], best: samples[0] };
};

/**
 * Wall-clock and CPU time (user + system) of RUNS calls, as median and best. On a shared, loaded host
 * CPU time is the steadier measure; the best wall time is the least disturbed run.
 */
async function time(fn) {
  const wall = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i += 1) {
    const before = process.cpuUsage();
    const started = performance.now();
    await fn();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall: summarize(wall), cpu: summarize(cpu) };
}

/** The same for a child process, its CPU time measured by GNU time. */
function processTime(command, args) {
  const wall = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i += 1) {
    // cwd: this folder, so that a child `node -e` resolves @rea/artifact from the bench package.
    const started = performance.now();
    const result = spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', command, ...args], {
      cwd: here,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    wall.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
    const [, user, system] = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr) ?? [];
    cpu.push((Number(user) + Number(system)) * 1000);
  }
  return { wall: summarize(wall), cpu: summarize(cpu) };
}

const target = process.argv[2]
  ? { path: process.argv[2], size: statSync(process.argv[2]).size }
  : largestSharedLibrary();
if (!target) {
  console.log('skipped: no ELF shared library found under /usr/lib, /usr/lib64, /lib or /usr/local/lib');
  process.exit(0);
}
if (spawnSync('llvm-readobj', ['--version'], { stdio: 'ignore' }).error || !existsSync('/usr/bin/time')) {
  console.log('skipped: llvm-readobj or GNU time (/usr/bin/time) is not installed');
  process.exit(0);
}
// Warm the page cache so that every contender reads from memory.
spawnSync('cat', [target.path], { stdio: ['ignore', 'ignore', 'ignore'] });

const layout = parseBinaryLayoutFile(target.path);
console.log(
  `file: ${target.path} (${(target.size / 1e6).toFixed(1)} MB; ${layout.sections.length} sections, ` +
    `${layout.symbols.length} symbols, ${layout.imports.length} imports, ${layout.exports.length} exports)`,
);

const noop = () => undefined;
const context = {
  session: { target: null, binding: null, run_id: null },
  platform: process.platform,
  signal: new AbortController().signal,
  progress: { report: noop },
  logger: { debug: noop, info: noop, warn: noop, error: noop },
  ledger: null,
  clientFeatures: new Set(),
};
const childScript = `import('@rea/artifact').then((m) => m.parseBinaryLayoutFile(${JSON.stringify(target.path)}))`;

const figures = {
  readobj: await processTime('llvm-readobj', ['--sections', '--symbols', target.path]),
  readobjDyn: await processTime('llvm-readobj', ['--sections', '--symbols', '--dyn-symbols', target.path]),
  parseFile: await time(() => parseBinaryLayoutFile(target.path)),
  parseProcess: await processTime(process.execPath, ['--input-type=module', '-e', childScript]),
  parseMemory: await time(() => parseBinaryLayout(readFileSync(target.path))),
  tool: await time(async () => {
    const input = inspectBinaryLayoutTool.input.parse({ path: target.path });
    const observation = await inspectBinaryLayoutTool.run(input, context);
    sealEvidence({ ...observation, operation: 'inspect_binary_layout' });
  }),
};

const ms = (value) => `${value.toFixed(0).padStart(6)} ms`;
const x = (value, reference) => `${(value / reference).toFixed(2)}x`.padStart(7);
const row = (label, figure, reference = figures.readobj) =>
  console.log(
    `${label.padEnd(48)} wall ${ms(figure.wall.median)} (best ${ms(figure.wall.best)})  cpu ${ms(figure.cpu.median)}` +
      `   ratio wall ${x(figure.wall.median, reference.wall.median)} best ${x(figure.wall.best, reference.wall.best)} cpu ${x(figure.cpu.median, reference.cpu.median)}`,
  );
console.log(`${RUNS} runs each, medians unless marked best; ratios are against llvm-readobj --sections --symbols`);
row('llvm-readobj --sections --symbols', figures.readobj);
row('llvm-readobj --sections --symbols --dyn-symbols', figures.readobjDyn);
row('REA parseBinaryLayoutFile, in process', figures.parseFile);
row('REA parseBinaryLayoutFile, fresh node process', figures.parseProcess);
row('REA parseBinaryLayout, whole file in memory', figures.parseMemory);
row('REA inspect_binary_layout, sealed Evidence', figures.tool);
const measures = [
  ['wall median', figures.parseFile.wall.median / figures.readobj.wall.median],
  ['wall best', figures.parseFile.wall.best / figures.readobj.wall.best],
  ['cpu median', figures.parseFile.cpu.median / figures.readobj.cpu.median],
];
console.log(
  `target (layout parse within 2x of llvm-readobj --sections --symbols): ` +
    measures.map(([name, value]) => `${name} ${value.toFixed(2)}x ${value <= 2 ? 'met' : 'NOT met'}`).join('; '),
);
console.log(
  `same tables (REA parses .dynsym; llvm-readobj needs --dyn-symbols for it): cpu ${(figures.parseFile.cpu.median / figures.readobjDyn.cpu.median).toFixed(2)}x`,
);
console.log(
  `load average during the run: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${cpus().length} CPUs`,
);

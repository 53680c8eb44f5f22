// @rea/provider-capstone benchmark against `objdump -d` on the same file in the same run: open + full
// function discovery (decode, CFG-ready instruction table, call targets, xrefs index, strings) by the
// embedded engine, vs objdump's plain linear disassembly listing. Every Capstone run is a fresh Node
// process, as a user's `rea analyze` is; runs alternate with objdump's so that both see the same load.
// objdump writes its listing to a file (as a user keeping the listing would; capturing it through a
// pipe into this Node process would slow objdump down and flatter the ratio).
// Two comparisons, each as wall time and as CPU time (user + system; steadier on a shared machine):
//   - open: the provider's probe and open (parse, decode, discovery, xrefs, strings) inside the fresh
//     process, including the WebAssembly engine load whenever the open needs the engine (x86-64 code
//     is measured by the fast reader; Capstone loads only for what it leaves, and for listings);
//   - process: the whole process from spawn to exit (Node start, module loading, open) against
//     objdump's whole process.
// Peak RSS of both processes. Target: open within 2x of objdump while doing strictly more.
// A warm second open in the same process is reported too, as extra information only.
// Every Capstone run also answers what binary_overview asks (the open + overview figures).
// Scaling table (every run; --scaling picks system binaries of 0.15, 1.3, 7.7 and ~30 MB): wall time,
// CPU time and peak RSS of open + overview against input size beside objdump's, ratios of medians,
// the load average, and the growth fitted (power-law exponents of time and peak RSS, and the
// least-squares MiB of peak RSS per MB of binary): how cost grows, not only what it is.
// Target: at most 3 MiB of peak memory per MB of binary (objdump: about 0.9).
// --previous <dist>: a previous build's packages/providers/capstone/dist, interleaved as a third
// contender (A B C A B C ...), for a before/after comparison on the same load. Place it inside
// packages/providers/capstone (e.g. .tmp/base/dist, compiled from `git archive <rev> src`) so that its
// imports resolve.
// Each worker process runs with V8's young generation as `rea` runs it (kept at its initial size, see
// packages/rea/src/bin.ts); a --previous build's workers run with V8's default, as `rea` did before,
// unless --previous-young-generation gives them the same setting (to compare two builds of the
// analysis alone).
// Usage: node bench/native/run.mjs [--runs N] [--scaling] [--previous dist [--previous-young-generation]] [binary ...]
//   (default: 1-5 MB system binaries)
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { printScaling } from './scaling.mjs';

const self = fileURLToPath(import.meta.url);

/** What binary_overview asks of the port (document, first procedures, imports counted page by page, entry, segments, counts). */
async function overview(port, signal) {
  const document = await port.document(signal);
  await port.procedures({ offset: 0, limit: 20 }, signal);
  let imports = 0;
  for (let offset = 0; offset !== null;) {
    const page = await port.procedures({ offset, limit: 2048 }, signal);
    for (const p of page.items) if (p.kind === 'import') imports += 1;
    offset = page.next_offset;
  }
  if (document.entry !== null) await port.containingProcedure(document.entry, signal);
  await port.segments(signal);
  await port.strings({ offset: 0, limit: 0 }, signal);
  await port.names({ offset: 0, limit: 0 }, signal);
  return imports;
}

async function worker(file, warm, dist, youngGeneration) {
  // Child: one open with the embedded engine and the overview (and, with warm, a second open), then a JSON report.
  // The young generation as `rea` keeps it (this build only; a previous build ran with V8's default).
  if (dist === '-' || youngGeneration === 'young') setFlagsFromString('--semi-space-growth-factor=1');
  const { createCapstoneProvider } = await import(
    dist === '-' ? '@rea/provider-capstone' : pathToFileURL(join(dist, 'index.js')).href
  );
  const target = { path: file, format: 'native', sha256: '0'.repeat(64), size: statSync(file).size };
  const signal = new AbortController().signal;
  const provider = createCapstoneProvider();
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await provider.probe();
  const session = await provider.open(target, { signal });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu0);
  await overview(session.session, signal);
  const total = process.cpuUsage(cpu0);
  const cache = createRequire(import.meta.url)('node:module')._cache;
  const engineLoaded = Object.keys(cache).some((k) => k.includes('capstone-js'));
  const report = {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    overviewMs: performance.now() - started,
    overviewCpuMs: (total.user + total.system) / 1000,
    engineLoaded,
    rssKb: process.resourceUsage().maxRSS,
  };
  if (warm) {
    const cpu1 = process.cpuUsage();
    const again = await provider.open(target, { signal });
    const w = process.cpuUsage(cpu1);
    report.warmCpuMs = (w.user + w.system) / 1000;
    await again.close(signal);
    const port = session.session;
    const all = await port.procedures({ offset: 0, limit: Number.MAX_SAFE_INTEGER }, signal);
    report.procedures = all.total;
    report.strings = (await port.strings({ offset: 0, limit: 0 }, signal)).total;
    report.instructions = 0;
    for (const p of all.items) report.instructions += (await port.procedure(p.address, signal)).instruction_count;
  }
  await session.close(signal);
  process.stdout.write(JSON.stringify(report));
  process.exit(0);
}

if (process.argv[2] === '--worker')
  await worker(process.argv[3], process.argv[4] === 'warm', process.argv[5], process.argv[6]);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const scratch = process.argv[2] === '--worker' ? null : mkdtempSync(join(tmpdir(), 'rea-bench-native-'));
if (scratch) process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

/** Runs a command under /usr/bin/time with stdout to a file: wall ms, CPU ms (user + system), peak RSS, stdout. */
function timed(command, args) {
  const output = join(scratch, 'stdout');
  const fd = openSync(output, 'w');
  const started = performance.now();
  const result = spawnSync('/usr/bin/time', ['-f', '%M %U %S', command, ...args], {
    stdio: ['ignore', fd, 'pipe'],
    encoding: 'buffer',
  });
  const ms = performance.now() - started;
  closeSync(fd);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  const [rssKb, user, system] = result.stderr.toString().trim().split('\n').pop().split(' ').map(Number);
  return { ms, cpuMs: (user + system) * 1000, rssKb, stdout: readFileSync(output) };
}

function objdump(file) {
  const r = timed('objdump', ['-d', file]);
  return { ...r, lines: r.stdout.toString('latin1').split('\n').length };
}

function capstone(file, warm = false, dist = '-') {
  const young = dist !== '-' && previousYoung ? 'young' : 'default';
  const r = timed(process.execPath, [self, '--worker', file, warm ? 'warm' : 'cold', dist, young]);
  return { process: r, open: JSON.parse(r.stdout.toString('utf8')) };
}

const argv = process.argv.slice(2);
const scaling = argv.includes('--scaling');
if (scaling) argv.splice(argv.indexOf('--scaling'), 1);
// --previous <dist>: a previous build of @rea/provider-capstone (its dist/), run as a third contender.
let previous = null;
const previousYoung = argv.includes('--previous-young-generation');
if (previousYoung) argv.splice(argv.indexOf('--previous-young-generation'), 1);
const previousAt = argv.indexOf('--previous');
if (previousAt >= 0) {
  previous = resolve(argv[previousAt + 1]);
  argv.splice(previousAt, 2);
}
let runs = 5;
const runsAt = argv.indexOf('--runs');
if (runsAt >= 0) {
  runs = Number(argv[runsAt + 1]);
  argv.splice(runsAt, 2);
}
// libcrypto's AVX/AVX-512 code exercises the fast reader's Capstone fallback (the engine loads).
const SCALING = [
  '/usr/bin/ls',
  '/usr/bin/bash',
  '/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0',
  '/usr/lib/x86_64-linux-gnu/libclang-14.so.14.0.6',
];
const candidates = argv.length
  ? argv
  : scaling
    ? SCALING
    : ['/usr/bin/tmux', '/usr/bin/bash', '/usr/bin/strace', '/usr/bin/git', '/usr/lib/x86_64-linux-gnu/libcrypto.so.3'];
const files = candidates.filter((f) => existsSync(f));
const fmt = (ms) => `${ms.toFixed(0)} ms`;
console.log(
  `load average at start: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')} (${runs} runs each, interleaved)`,
);
const table = [];
for (const file of files) {
  const size = statSync(file).size;
  const o = [];
  const c = [];
  const p = [];
  for (let i = 0; i < runs; i += 1) {
    o.push(objdump(file));
    c.push(capstone(file));
    if (previous) p.push(capstone(file, false, previous));
  }
  const extra = capstone(file, true);
  const oMs = median(o.map((r) => r.ms));
  const oCpu = median(o.map((r) => r.cpuMs));
  const openMs = median(c.map((r) => r.open.ms));
  const openCpu = median(c.map((r) => r.open.cpuMs));
  const procMs = median(c.map((r) => r.process.ms));
  const procCpu = median(c.map((r) => r.process.cpuMs));
  const loaded = c.filter((r) => r.open.engineLoaded).length;
  const rss = median(c.map((r) => r.process.rssKb));
  console.log(`${file} (${(size / 1e6).toFixed(2)} MB)`);
  console.log(
    `  objdump -d:            wall ${fmt(oMs)}, cpu ${fmt(oCpu)}, peak RSS ${(o[0].rssKb / 1024).toFixed(0)} MiB, ${o[0].lines} listing lines`,
  );
  console.log(
    `  capstone probe + open: wall ${fmt(openMs)}, cpu ${fmt(openCpu)} (WebAssembly engine loaded in ${loaded} of ${c.length} runs); ` +
      `${extra.open.procedures} procedures, ${extra.open.instructions} instructions, ${extra.open.strings} strings`,
  );
  console.log(
    `  capstone + overview:   wall ${fmt(median(c.map((r) => r.open.overviewMs)))}, cpu ${fmt(median(c.map((r) => r.open.overviewCpuMs)))}`,
  );
  console.log(
    `  capstone process:      wall ${fmt(procMs)}, cpu ${fmt(procCpu)}, peak RSS ${(rss / 1024).toFixed(0)} MiB (Node start to exit)`,
  );
  console.log(`  warm second open, same process: cpu ${fmt(extra.open.warmCpuMs)}`);
  const row = { file, mb: size / 1e6, load: loadavg()[0] };
  const put = (name, ms, cpu, rssKb) => {
    row[`${name}Ms`] = ms;
    row[`${name}Cpu`] = cpu;
    row[`${name}Rss`] = rssKb / 1024;
  };
  put('capstone', median(c.map((r) => r.open.overviewMs)), median(c.map((r) => r.open.overviewCpuMs)), rss);
  if (previous)
    put(
      'previous',
      median(p.map((r) => r.open.overviewMs)),
      median(p.map((r) => r.open.overviewCpuMs)),
      median(p.map((r) => r.process.rssKb)),
    );
  put('objdump', oMs, oCpu, median(o.map((r) => r.rssKb)));
  table.push(row);
  console.log(
    `  ratio to objdump: open wall ${(openMs / oMs).toFixed(2)}x, open cpu ${(openCpu / oCpu).toFixed(2)}x; ` +
      `process wall ${(procMs / oMs).toFixed(2)}x, process cpu ${(procCpu / oCpu).toFixed(2)}x; ` +
      `warm open cpu ${(extra.open.warmCpuMs / oCpu).toFixed(2)}x (target: open within 2x of objdump)`,
  );
}
// Capstone's figures are the open + overview inside its process (without Node's start); peak RSS is the whole process's.
printScaling(table, previous ? ['capstone', 'previous', 'objdump'] : ['capstone', 'objdump']);
console.log(
  `load average at end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);

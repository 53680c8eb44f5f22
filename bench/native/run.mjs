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
// Scaling (--scaling): the same measures on system binaries of four sizes (0.15, 1.3, 7.7 and ~30 MB
// where present), with the growth fitted (log-log slope of open time and of peak RSS against size,
// and the least-squares MiB of peak RSS per MB of binary): how cost grows, not only what it is.
// Target: at most 3 MiB of peak memory per MB of binary (objdump: about 0.9).
// Usage: node bench/native/run.mjs [--runs N] [--scaling] [binary ...]   (default: 1-5 MB system binaries)
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);

async function worker(file, warm) {
  // Child: one open with the embedded engine (and, with warm, a second one), then a JSON report.
  const { createCapstoneProvider } = await import('@rea/provider-capstone');
  const target = { path: file, format: 'native', sha256: '0'.repeat(64), size: statSync(file).size };
  const signal = new AbortController().signal;
  const provider = createCapstoneProvider();
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await provider.probe();
  const session = await provider.open(target, { signal });
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu0);
  const cache = createRequire(import.meta.url)('node:module')._cache;
  const engineLoaded = Object.keys(cache).some((k) => k.includes('capstone-js'));
  const report = { ms, cpuMs: (used.user + used.system) / 1000, engineLoaded, rssKb: process.resourceUsage().maxRSS };
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

if (process.argv[2] === '--worker') await worker(process.argv[3], process.argv[4] === 'warm');

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

function capstone(file, warm = false) {
  const r = timed(process.execPath, [self, '--worker', file, ...(warm ? ['warm'] : [])]);
  return { process: r, open: JSON.parse(r.stdout.toString('utf8')) };
}

const argv = process.argv.slice(2);
const scaling = argv.includes('--scaling');
if (scaling) argv.splice(argv.indexOf('--scaling'), 1);
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
  for (let i = 0; i < runs; i += 1) {
    o.push(objdump(file));
    c.push(capstone(file));
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
    `  capstone process:      wall ${fmt(procMs)}, cpu ${fmt(procCpu)}, peak RSS ${(rss / 1024).toFixed(0)} MiB (Node start to exit)`,
  );
  console.log(`  warm second open, same process: cpu ${fmt(extra.open.warmCpuMs)}`);
  table.push({
    file,
    mb: size / 1e6,
    openMs,
    procMs,
    rssMiB: rss / 1024,
    objdumpMs: oMs,
    objdumpRssMiB: median(o.map((r) => r.rssKb)) / 1024,
  });
  console.log(
    `  ratio to objdump: open wall ${(openMs / oMs).toFixed(2)}x, open cpu ${(openCpu / oCpu).toFixed(2)}x; ` +
      `process wall ${(procMs / oMs).toFixed(2)}x, process cpu ${(procCpu / oCpu).toFixed(2)}x; ` +
      `warm open cpu ${(extra.open.warmCpuMs / oCpu).toFixed(2)}x (target: open within 2x of objdump)`,
  );
}
/** Least-squares slope and intercept of y against x. */
function fit(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i += 1) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}
if (table.length >= 2) {
  console.log('\nscaling (medians): size MB | open ms | process ms | peak RSS MiB | objdump ms | objdump peak RSS MiB');
  for (const r of table)
    console.log(
      `  ${r.mb.toFixed(2).padStart(7)} | ${r.openMs.toFixed(0).padStart(7)} | ${r.procMs.toFixed(0).padStart(10)} | ` +
        `${r.rssMiB.toFixed(0).padStart(12)} | ${r.objdumpMs.toFixed(0).padStart(10)} | ${r.objdumpRssMiB.toFixed(0).padStart(8)}`,
    );
  const logs = (k) => table.map((r) => Math.log(r[k]));
  const sizes = table.map((r) => Math.log(r.mb));
  const time = fit(sizes, logs('openMs')).slope;
  const memory = fit(sizes, logs('rssMiB')).slope;
  const perMb = fit(
    table.map((r) => r.mb),
    table.map((r) => r.rssMiB),
  );
  const objdumpPerMb = fit(
    table.map((r) => r.mb),
    table.map((r) => r.objdumpRssMiB),
  );
  console.log(
    `  fitted growth: open time ~ size^${time.toFixed(2)}, peak RSS ~ size^${memory.toFixed(2)}; ` +
      `peak RSS ${perMb.intercept.toFixed(0)} MiB + ${perMb.slope.toFixed(2)} MiB per MB of binary ` +
      `(objdump ${objdumpPerMb.slope.toFixed(2)} MiB per MB; target <= 3)`,
  );
}
console.log(
  `load average at end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);

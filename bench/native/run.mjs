// @rea/provider-capstone benchmark against `objdump -d` on the same file in the same run:
// open + full function discovery (decode, CFG-ready instruction table, call targets, xrefs index,
// strings) by the embedded engine, vs objdump's plain linear disassembly listing. Reports the time
// ratio (target: <= 2x objdump while doing strictly more) and both processes' peak RSS. CPU time
// (user + system) is reported beside wall time: on a shared machine it is the steadier comparison.
// The engine's one-time WebAssembly load (done by probe) is reported separately, outside the open.
// Usage: node bench/native/run.mjs [binary ...]   (default: 1-5 MB binaries from /usr/bin)
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);

if (process.argv[2] === '--worker') {
  // Child: one open with the embedded engine, then report timings, counts and peak RSS as JSON.
  const { createCapstoneProvider } = await import('@rea/provider-capstone');
  const file = process.argv[3];
  const provider = createCapstoneProvider();
  const loadStarted = performance.now();
  await provider.probe();
  const loadMs = performance.now() - loadStarted;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const session = await provider.open(
    { path: file, format: 'native', sha256: '0'.repeat(64), size: statSync(file).size },
    { signal: new AbortController().signal },
  );
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu0);
  const cpuMs = (used.user + used.system) / 1000;
  // A second open in the same process: what a long-running server pays once its code is warm.
  const cpu1 = process.cpuUsage();
  const again = await provider.open(
    { path: file, format: 'native', sha256: '0'.repeat(64), size: statSync(file).size },
    { signal: new AbortController().signal },
  );
  const warm = process.cpuUsage(cpu1);
  const warmCpuMs = (warm.user + warm.system) / 1000;
  await again.close(new AbortController().signal);
  const port = session.session;
  const signal = new AbortController().signal;
  const procedures = await port.procedures({ offset: 0, limit: 0 }, signal);
  const strings = await port.strings({ offset: 0, limit: 0 }, signal);
  const all = await port.procedures({ offset: 0, limit: Number.MAX_SAFE_INTEGER }, signal);
  let instructions = 0;
  for (const p of all.items) instructions += (await port.procedure(p.address, signal)).instruction_count;
  await session.close(signal);
  process.stdout.write(
    JSON.stringify({
      ms,
      cpuMs,
      warmCpuMs,
      loadMs,
      procedures: procedures.total,
      strings: strings.total,
      instructions,
      rssKb: process.resourceUsage().maxRSS,
    }),
  );
  process.exit(0);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function objdump(file) {
  const started = performance.now();
  const result = spawnSync('/usr/bin/time', ['-f', '%M %U %S', 'objdump', '-d', file], {
    maxBuffer: 1 << 30,
    encoding: 'buffer',
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`objdump failed on ${file}`);
  const [rssKb, user, system] = result.stderr.toString().trim().split('\n').pop().split(' ').map(Number);
  return { ms, cpuMs: (user + system) * 1000, rssKb, lines: result.stdout.toString('latin1').split('\n').length };
}

function capstone(file) {
  const result = spawnSync(process.execPath, [self, '--worker', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`capstone worker failed on ${file}:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

const candidates = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['/usr/bin/tmux', '/usr/bin/bash', '/usr/bin/git'];
const files = candidates.filter((f) => existsSync(f));
const runs = 3;
for (const file of files) {
  const size = statSync(file).size;
  const o = Array.from({ length: runs }, () => objdump(file));
  const c = Array.from({ length: runs }, () => capstone(file));
  const oMs = median(o.map((r) => r.ms));
  const cMs = median(c.map((r) => r.ms));
  const oCpu = median(o.map((r) => r.cpuMs));
  const cCpu = median(c.map((r) => r.cpuMs));
  const cWarm = median(c.map((r) => r.warmCpuMs));
  const last = c[c.length - 1];
  console.log(`${file} (${(size / 1e6).toFixed(2)} MB)`);
  console.log(
    `  objdump -d:         ${oMs.toFixed(0)} ms (median of ${runs}), peak RSS ${(o[0].rssKb / 1024).toFixed(0)} MiB, ${o[0].lines} listing lines`,
  );
  console.log(
    `  capstone discovery: ${cMs.toFixed(0)} ms (median of ${runs}), peak RSS ${(last.rssKb / 1024).toFixed(0)} MiB (whole Node process), ` +
      `${last.procedures} procedures, ${last.instructions} instructions, ${last.strings} strings`,
  );
  console.log(
    `  cpu time: objdump ${oCpu.toFixed(0)} ms, capstone ${cCpu.toFixed(0)} ms (engine load ${last.loadMs.toFixed(0)} ms wall, once per process)`,
  );
  console.log(`  warm second open in the same process: cpu ${cWarm.toFixed(0)} ms`);
  console.log(
    `  ratio capstone/objdump: wall ${(cMs / oMs).toFixed(2)}x, cpu ${(cCpu / oCpu).toFixed(2)}x, warm cpu ${(cWarm / oCpu).toFixed(2)}x (target <= 2x)`,
  );
}

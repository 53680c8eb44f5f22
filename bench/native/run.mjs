// @rea/provider-capstone benchmark against `objdump -d` on the same file in the same run:
// open + full function discovery (decode, CFG-ready instruction table, call targets, xrefs index,
// strings) by the embedded engine, vs objdump's plain linear disassembly listing. Reports the time
// ratio (target: <= 2x objdump while doing strictly more) and both processes' peak RSS.
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
  await provider.probe();
  const started = performance.now();
  const session = await provider.open(
    { path: file, format: 'native', sha256: '0'.repeat(64), size: statSync(file).size },
    { signal: new AbortController().signal },
  );
  const ms = performance.now() - started;
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
  const result = spawnSync('/usr/bin/time', ['-f', '%M', 'objdump', '-d', file], {
    maxBuffer: 1 << 30,
    encoding: 'buffer',
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`objdump failed on ${file}`);
  const rssKb = Number(result.stderr.toString().trim().split('\n').pop());
  return { ms, rssKb, lines: result.stdout.toString('latin1').split('\n').length };
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
  const last = c[c.length - 1];
  console.log(`${file} (${(size / 1e6).toFixed(2)} MB)`);
  console.log(
    `  objdump -d:         ${oMs.toFixed(0)} ms (median of ${runs}), peak RSS ${(o[0].rssKb / 1024).toFixed(0)} MiB, ${o[0].lines} listing lines`,
  );
  console.log(
    `  capstone discovery: ${cMs.toFixed(0)} ms (median of ${runs}), peak RSS ${(last.rssKb / 1024).toFixed(0)} MiB (whole Node process), ` +
      `${last.procedures} procedures, ${last.instructions} instructions, ${last.strings} strings`,
  );
  console.log(`  ratio capstone/objdump: ${(cMs / oMs).toFixed(2)}x (target <= 2x)`);
}

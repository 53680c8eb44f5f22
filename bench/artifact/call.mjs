// One timed call of the built @rea/artifact in a fresh process, after a warm-up call on a tiny archive
// (so module loading is not timed, as on a warm MCP connection). Prints one JSON line: the call's wall
// time, its CPU time (every thread of the process: the caller's and its workers'), the process's RSS
// before the call and its peak RSS (VmHWM) after it. REA_ARTIFACT names another build's dist/index.js.
//   node bench/artifact/call.mjs inspect <zip>
//   node bench/artifact/call.mjs extract <zip> <names file> <parent directory>
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
const { extractArtifact, inspectArtifact } = await import(process.env.REA_ARTIFACT ?? '@rea/artifact');

const [op, zip, namesFile, parent] = process.argv.slice(2);
const vm = (field) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;

const warm = mkdtempSync(join(tmpdir(), 'rea-bench-warm-'));
try {
  writeFileSync(join(warm, 'a.txt'), 'warm');
  execFileSync('zip', ['-q', join(warm, 'w.zip'), 'a.txt'], { cwd: warm });
  await inspectArtifact(join(warm, 'w.zip'));
  await extractArtifact(join(warm, 'w.zip'), { parentDirectory: warm });
} finally {
  rmSync(warm, { recursive: true, force: true });
}

const before = vm('VmRSS');
const cpu = process.cpuUsage();
const start = performance.now();
if (op === 'inspect') {
  const { coverage, inventory } = await inspectArtifact(zip);
  if (coverage.status !== 'complete') throw new Error(`incomplete inventory: ${coverage.reasons.join('; ')}`);
  if (inventory.entries.length === 0) throw new Error('empty inventory');
} else {
  const select = readFileSync(namesFile, 'utf8').trim().split('\n');
  const { result } = await extractArtifact(zip, { parentDirectory: parent, select });
  if (result.files.length !== select.length) throw new Error(`extracted ${result.files.length} of ${select.length}`);
}
const wall = performance.now() - start;
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ wall, cpu: (used.user + used.system) / 1000, rssBefore: before, peakRss: vm('VmHWM') }));

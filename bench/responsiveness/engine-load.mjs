// How long loading the Capstone engine (the first disassembly of a process) holds the event loop.
// Each run is a fresh Node process that imports a build of @rea/provider-capstone, opens /usr/bin/ls
// (x86-64 discovery never loads the engine), then asks for one instruction while a 1 ms timer probes
// the loop: the longest stall (wall), and on Linux the most CPU time the main thread itself used within
// one stall (from /proc/self/task/<pid>/schedstat: what the stall lasts without other processes'
// turns on the cores), the load's wall time, the process's CPU time, its minor page faults (fresh
// memory touched: instantiating the engine writes its data into 22 MB of new memory) and its peak RSS.
// Usage: node bench/responsiveness/engine-load.mjs [runs] [baseline-dist]
// With a baseline (the dist/ directory of another build of the package, e.g. one built from an earlier
// commit), the two are interleaved run by run (A B A B …) and ratios of medians are reported.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const runs = Number(process.argv[2] ?? 7);
const baseline = process.argv[3] ? resolve(process.argv[3]) : null;
const current = join(dirname(createRequire(import.meta.url).resolve('@rea/provider-capstone/package.json')), 'dist');

const child = (dist) => `
import { existsSync, readFileSync } from 'node:fs';
const { createCapstoneProvider } = await import(${JSON.stringify(pathToFileURL(join(dist, 'index.js')).href)});
const SCHED = '/proc/self/task/' + process.pid + '/schedstat';
const cpu = existsSync(SCHED) ? () => Number(readFileSync(SCHED, 'latin1').split(' ')[0]) / 1e6 : () => null;
const provider = createCapstoneProvider();
const signal = new AbortController().signal;
const session = await provider.open({ path: '/usr/bin/ls', format: 'native', sha256: '0'.repeat(64), size: 0 }, { signal });
const first = (await session.session.procedures({ offset: 0, limit: 1 }, signal)).items[0];
await new Promise((r) => setTimeout(r, 50));
let last = performance.now(), lastCpu = cpu(), longest = 0, cpuStall = null;
const timer = setInterval(() => {
  const now = performance.now(), used = cpu();
  if (now - last > longest) longest = now - last;
  if (used !== null && now - last > 2) cpuStall = Math.max(cpuStall ?? 0, used - lastCpu);
  last = now; lastCpu = used;
}, 1);
const usage = process.cpuUsage();
const faults = process.resourceUsage().minorPageFault;
const started = performance.now();
await session.session.instructions(first.address, { offset: 0, limit: 1 }, signal);
const total = performance.now() - started;
const spent = process.cpuUsage(usage);
await new Promise((r) => setTimeout(r, 3));
clearInterval(timer);
await session.close(signal);
process.stdout.write(JSON.stringify({ longest, cpuStall, total, cpu: (spent.user + spent.system) / 1000, rss: process.resourceUsage().maxRSS / 1024, faults: process.resourceUsage().minorPageFault - faults }));
`;

function once(dist) {
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', child(dist)], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`run failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const contenders = baseline
  ? [
      ['baseline', baseline],
      ['current', current],
    ]
  : [['current', current]];
const results = new Map(contenders.map(([name]) => [name, []]));
const loads = [];
for (let i = 0; i < runs; i += 1) {
  for (const [name, dist] of contenders) {
    results.get(name).push(once(dist));
    loads.push(loadavg()[0]);
  }
}
const fields = [
  ['longest stall (wall, ms)', 'longest'],
  ['most main-thread CPU in one stall (ms)', 'cpuStall'],
  ['engine load (wall, ms)', 'total'],
  ['process CPU during the load (ms)', 'cpu'],
  ['minor page faults during the load', 'faults'],
  ['peak RSS (MiB)', 'rss'],
];
console.log(
  `${runs} runs each, interleaved; load average during the runs ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
);
for (const [label, key] of fields) {
  const medians = contenders.map(([name]) => median(results.get(name).map((r) => r[key] ?? Number.NaN)));
  const ratio = medians.length === 2 ? `   current/baseline ${(medians[1] / medians[0]).toFixed(2)}` : '';
  console.log(
    `  ${label.padEnd(40)} ${contenders.map(([name], k) => `${name} ${medians[k].toFixed(1)}`).join('   ')}${ratio}`,
  );
}

// Start-up cost of the `rea` executable against plain Node.js, in the same run: `rea --version` and
// `rea --help` must answer without loading the CLI, the catalog or any provider. Also times a command
// that does load the catalog (`rea --llms`), for scale, and the fixed cost of a whole analysis of a
// small system binary (`rea analyze /usr/bin/ls`) against `objdump -d` on the same file.
// Reports medians of wall time and of CPU time (user + system of the process, steadier than wall time
// on a shared machine), peak RSS, and ratios to `node -e 0` and to `objdump -d`; then the load average.
// Targets: `rea --version` and `rea --help` within 3x `node -e 0`; `rea analyze` of a 150 KB binary
// within 0.25 s.
// Usage: node bench/cli/run.mjs [--runs N] [--binary PATH]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const runs = Number(option('--runs', 21));
const binary = option('--binary', '/usr/bin/ls');
const bin = join(dirname(createRequire(import.meta.url).resolve('rea-mcp/package.json')), 'dist', 'bin.js');
// GNU time reports the CPU time and peak RSS of the process it runs; without it only wall time is shown.
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

function time(command, args) {
  const start = process.hrtime.bigint();
  const result = gnuTime
    ? spawnSync(gnuTime, ['-f', '%U %S %M', command, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
      })
    : spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  if (!gnuTime) return { ms, cpu: null, rss: null };
  const [user, sys, rssKb] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { ms, cpu: (user + sys) * 1000, rss: rssKb * 1024 };
}

const node = process.execPath;
const cases = [
  ['node -e 0', node, ['-e', '0']],
  ['rea --version', node, [bin, '--version']],
  ['rea --help', node, [bin, '--help']],
  ['rea --llms (loads the catalog)', node, [bin, '--llms']],
  [`objdump -d ${binary}`, 'objdump', ['-d', binary]],
  [`rea analyze ${binary}`, node, [bin, 'analyze', binary, '--quiet']],
];
const samples = new Map(cases.map(([name]) => [name, []]));
// Interleave the cases so that machine load affects them alike.
for (let i = 0; i < runs; i += 1) {
  for (const [name, command, args] of cases) {
    if (name.startsWith('rea --llms') && i % 4 !== 0) continue;
    samples.get(name).push(time(command, args));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stat = (name, key) => median(samples.get(name).map((s) => s[key]));
const base = stat('node -e 0', 'ms');
const baseCpu = stat('node -e 0', 'cpu');
const objdump = `objdump -d ${binary}`;
console.log(`runs: ${runs} (interleaved); bin: ${bin}`);
for (const [name] of cases) {
  const m = stat(name, 'ms');
  const cpu = stat(name, 'cpu');
  const rss = Math.max(...samples.get(name).map((s) => s.rss ?? 0));
  const versus = name.startsWith('rea analyze')
    ? `${(m / stat(objdump, 'ms')).toFixed(2)}x ${objdump} wall, ${(cpu / Math.max(stat(objdump, 'cpu'), 10)).toFixed(1)}x CPU`
    : `${(m / base).toFixed(2)}x node -e 0 wall${cpu === null ? '' : `, ${(cpu / Math.max(baseCpu, 10)).toFixed(2)}x CPU`}`;
  console.log(
    `${name.padEnd(34)} median ${m.toFixed(1).padStart(7)} ms` +
      (cpu === null
        ? ''
        : `  CPU ${cpu.toFixed(0).padStart(5)} ms  peak RSS ${(rss / 1048576).toFixed(1).padStart(5)} MiB`) +
      `   ${versus}`,
  );
}
const worst = Math.max(stat('rea --version', 'ms'), stat('rea --help', 'ms'));
console.log(`target: --version/--help within 3x node -e 0 (150 ms vs 50 ms): ${worst / base <= 3 ? 'met' : 'NOT met'}`);
const analyze = stat(`rea analyze ${binary}`, 'ms');
const analyzeCpu = stat(`rea analyze ${binary}`, 'cpu');
console.log(
  `target: rea analyze of a 150 KB binary within 250 ms: ${analyze <= 250 ? 'met' : 'NOT met'} (wall ${analyze.toFixed(0)} ms` +
    `${analyzeCpu === null ? '' : `, CPU ${analyzeCpu.toFixed(0)} ms`}; fixed cost over the --version floor ${(analyze - stat('rea --version', 'ms')).toFixed(0)} ms)`,
);
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);

// Start-up cost of the `rea` executable against plain Node.js, in the same run: `rea --version` and
// `rea --help` must answer without loading the CLI, the catalog or any provider. Also times a command
// that does load the catalog (`rea --llms`), for scale, and whole analyses of system binaries
// (`rea analyze <binary> --format json`, by default /usr/bin/ls, 150 KB, and /usr/bin/bash, 1.3 MB)
// against `objdump -d` on the same files.
// With --baseline <dist/bin.cjs of another build> (a copy made by bench/cli/baseline.mjs from a build of
// the revision to compare against, kept outside packages/), that build's `rea analyze` runs interleaved
// with this one's, and each analysis is also given as a ratio to it.
// `rea` keeps V8's compiled code of its command line between runs (REA_CODE_CACHE_DIR): the bench gives
// it a fresh cache directory, runs each command once before timing (as any run after the first finds
// it), and also times the small analysis without it (REA_CODE_CACHE=off: what the first run after an
// installation, or a machine with no writable cache directory, pays).
// Reports medians of wall time and of CPU time (user + system of the process, steadier than wall time
// on a shared machine), peak RSS, and ratios to `node -e 0`, to `objdump -d` and to the baseline; then
// the load average.
// Targets: `rea --version` and `rea --help` within 3x `node -e 0`; `rea analyze` of a 150 KB binary
// within 0.25 s; of a 1.3 MB binary within 2x `objdump -d`.
// Usage: node bench/cli/run.mjs [--runs N] [--binary PATH]... [--baseline PATH]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : fallback;
};
const runs = Number(option('--runs', 21));
const given = argv.flatMap((a, i) => (a === '--binary' ? [argv[i + 1]] : []));
const binaries = given.length > 0 ? given : ['/usr/bin/ls', '/usr/bin/bash'].filter((path) => existsSync(path));
const baseline = option('--baseline', null);
const bin = join(dirname(createRequire(import.meta.url).resolve('rea-mcp/package.json')), 'dist', 'bin.cjs');
// GNU time reports the CPU time and peak RSS of the process it runs; without it only wall time is shown.
const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

const cacheDir = mkdtempSync(join(tmpdir(), 'rea-bench-code-cache-'));
process.on('exit', () => rmSync(cacheDir, { recursive: true, force: true }));

function time(command, args, extraEnv = {}) {
  const env = { ...process.env, REA_CODE_CACHE_DIR: cacheDir, ...extraEnv };
  const start = process.hrtime.bigint();
  const result = gnuTime
    ? spawnSync(gnuTime, ['-f', '%U %S %M', command, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        env,
      })
    : spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  if (!gnuTime) return { ms, cpu: null, rss: null };
  const [user, sys, rssKb] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  return { ms, cpu: (user + sys) * 1000, rss: rssKb * 1024 };
}

const node = process.execPath;
const analyze = (path, script) => [node, [script, 'analyze', path, '--format', 'json', '--quiet']];
const cases = [
  ['node -e 0', node, ['-e', '0']],
  ['rea --version', node, [bin, '--version']],
  ['rea --help', node, [bin, '--help']],
  ['rea --llms (loads the catalog)', node, [bin, '--llms']],
  ...binaries.flatMap((path, index) => [
    [`objdump -d ${path}`, 'objdump', ['-d', path]],
    [`rea analyze ${path}`, ...analyze(path, bin)],
    ...(index === 0 ? [[`rea analyze ${path} (no code cache)`, ...analyze(path, bin), { REA_CODE_CACHE: 'off' }]] : []),
    ...(baseline ? [[`baseline analyze ${path}`, ...analyze(path, baseline)]] : []),
  ]),
];
// The code cache as any run after the first finds it.
for (const [name, command, args, env] of cases) if (name.startsWith('rea ') && !env) time(command, args);
const samples = new Map(cases.map(([name]) => [name, []]));
// Interleave the cases so that machine load affects them alike, in the opposite order every other round:
// in one fixed order, each case always ran right after the same other one (the baseline's analysis right
// after this build's analysis without its code cache), which weighs on a comparison of a few percent.
for (let i = 0; i < runs; i += 1) {
  for (const [name, command, args, env] of i % 2 === 0 ? cases : [...cases].reverse()) {
    if (name.startsWith('rea --llms') && i % 4 !== 0) continue;
    samples.get(name).push(time(command, args, env));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stat = (name, key) => median(samples.get(name).map((s) => s[key]));
const ratio = (a, b) => (a === null || b === null ? 'n/a' : (a / Math.max(b, 10)).toFixed(2));
const base = stat('node -e 0', 'ms');
const baseCpu = stat('node -e 0', 'cpu');
console.log(`runs: ${runs} (interleaved); bin: ${bin}${baseline ? `; baseline: ${baseline}` : ''}`);
for (const [name] of cases) {
  const m = stat(name, 'ms');
  const cpu = stat(name, 'cpu');
  const rss = Math.max(...samples.get(name).map((s) => s.rss ?? 0));
  const path = / analyze (\S+)(?: \(no code cache\))?$/.exec(name)?.[1];
  const objdump = path ? `objdump -d ${path}` : null;
  const versus = objdump
    ? `${ratio(m, stat(objdump, 'ms'))}x objdump wall, ${ratio(cpu, stat(objdump, 'cpu'))}x CPU; ` +
      `${ratio(m, base)}x node -e 0 wall`
    : `${ratio(m, base)}x node -e 0 wall, ${ratio(cpu, baseCpu)}x CPU`;
  console.log(
    `${name.padEnd(44)} median ${m.toFixed(1).padStart(7)} ms` +
      (cpu === null
        ? ''
        : `  CPU ${cpu.toFixed(0).padStart(5)} ms  peak RSS ${(rss / 1048576).toFixed(1).padStart(5)} MiB`) +
      `   ${versus}`,
  );
}
if (baseline) {
  for (const path of binaries) {
    const [now, before] = [`rea analyze ${path}`, `baseline analyze ${path}`];
    console.log(
      `this build / baseline, analyze ${path}: ${ratio(stat(now, 'ms'), stat(before, 'ms'))}x wall, ` +
        `${ratio(stat(now, 'cpu'), stat(before, 'cpu'))}x CPU`,
    );
  }
}
const worst = Math.max(stat('rea --version', 'ms'), stat('rea --help', 'ms'));
console.log(`target: --version/--help within 3x node -e 0 (150 ms vs 50 ms): ${worst / base <= 3 ? 'met' : 'NOT met'}`);
const [small, large] = binaries;
if (small) {
  const wall = stat(`rea analyze ${small}`, 'ms');
  const cpu = stat(`rea analyze ${small}`, 'cpu');
  console.log(
    `target: rea analyze of ${small} (a 150 KB binary) within 250 ms: ${wall <= 250 ? 'met' : 'NOT met'} (wall ${wall.toFixed(0)} ms` +
      `${cpu === null ? '' : `, CPU ${cpu.toFixed(0)} ms`}; fixed cost over the --version floor ${(wall - stat('rea --version', 'ms')).toFixed(0)} ms;` +
      ` without the code cache ${stat(`rea analyze ${small} (no code cache)`, 'ms').toFixed(0)} ms)`,
  );
}
if (large) {
  const times = stat(`rea analyze ${large}`, 'ms') / stat(`objdump -d ${large}`, 'ms');
  console.log(
    `target: rea analyze of ${large} within 2x objdump -d: ${times <= 2 ? 'met' : 'NOT met'} (${times.toFixed(2)}x wall)`,
  );
}
console.log(
  `load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);

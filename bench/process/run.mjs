// @rea/provider-lldb benchmark on the same program in the same run:
//   trace: observe_native_calls counting N calls (default 100,000) of one function, against a minimal
//     hand-written LLDB Python script doing the same (floor.py: the floor) and against `ltrace -c`
//     (ptrace breakpoints without a debugger in between; a reference, not a target).
//     Target: observe_native_calls within 1.5x of the floor.
//   capture: capture_process_scenario of a short program against running the program directly.
// Each contender runs in its own process (start-up counted for all: Node and the LLDB agent for REA,
// Python and LLDB for the floor), interleaved run by run; ratios are of medians; peak RSS from GNU time
// (the largest process of each tree). Every run's count is checked against N.
// Usage: node bench/process/run.mjs [--calls N] [--runs N] [--capture-runs N]
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const CALLS = option('--calls', 100_000);
const RUNS = option('--runs', 3);
const CAPTURE_RUNS = option('--capture-runs', 9);

/** The directory holding LLDB's Python module: REA_LLDB_PYTHONPATH, else Debian's llvm-14 layout. */
function lldbPythonPath() {
  if (process.env['REA_LLDB_PYTHONPATH']) return process.env['REA_LLDB_PYTHONPATH'];
  const version = execFileSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {
    encoding: 'utf8',
  }).trim();
  return `/usr/lib/llvm-14/lib/python${version}/dist-packages`;
}

const missing = ['gcc', 'ltrace', 'python3', '/usr/bin/time'].filter(
  (tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).error,
);
if (missing.length > 0) {
  console.log(`skipped: ${missing.join(', ')} not installed`);
  process.exit(0);
}
const scratch = mkdtempSync(join(tmpdir(), 'rea-bench-process-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

// traced() has a side effect so that every call stays a call; -O1 -g as a user's debug build.
const program = join(scratch, 'calls');
writeFileSync(
  `${program}.c`,
  `#include <stdio.h>
#include <stdlib.h>
static volatile long sink;
__attribute__((noinline)) long traced(long value) { sink += value; return value + 1; }
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1, total = 0;
  for (long i = 0; i < n; i++) total += traced(i);
  printf("%ld\\n", total);
  return 0;
}
`,
);
execFileSync('gcc', ['-O1', '-g', '-o', program, `${program}.c`]);
const lldbPath = lldbPythonPath();

/** Runs a command under GNU time, stdout to a file: wall ms, CPU ms, peak RSS KiB, last stdout line. */
function once(command, args, stderrFile) {
  const output = join(scratch, 'stdout');
  const fd = openSync(output, 'w');
  const started = performance.now();
  const result = spawnSync(
    '/usr/bin/time',
    ['-f', 'rss %M cpu %U %S', ...(stderrFile ? ['-o', stderrFile] : []), command, ...args],
    {
      cwd: scratch,
      stdio: ['ignore', fd, 'pipe'],
      encoding: 'utf8',
      env: { ...process.env, REA_LLDB_PYTHONPATH: lldbPath },
    },
  );
  const ms = performance.now() - started;
  closeSync(fd);
  const timing = stderrFile ? readFileSync(stderrFile, 'utf8') : result.stderr;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
  const match = /rss (\d+) cpu ([\d.]+) ([\d.]+)/.exec(timing);
  const lines = readFileSync(output, 'utf8').trim().split('\n');
  return { ms, cpuMs: (Number(match[2]) + Number(match[3])) * 1000, rssKb: Number(match[1]), last: lines.at(-1) };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
const summary = (label, runs) => {
  const ms = median(runs.map((r) => r.ms));
  const cpu = median(runs.map((r) => r.cpuMs));
  const rss = median(runs.map((r) => r.rssKb)) / 1024;
  console.log(`  ${label.padEnd(34)} wall ${fmt(ms)}, cpu ${fmt(cpu)}, peak RSS ${rss.toFixed(0)} MiB`);
  return { ms, cpu };
};
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

console.log(
  `load average at start: ${load()} (trace: ${CALLS} calls, ${RUNS} runs each; capture: ${CAPTURE_RUNS} runs each; interleaved)`,
);
const expected = String(CALLS);
const contenders = {
  rea: () => once(process.execPath, [join(here, 'child.mjs'), 'trace', program, 'traced', String(CALLS)]),
  floor: () => once('python3', [join(here, 'floor.py'), lldbPath, program, 'traced', String(CALLS)]),
  ltrace: () => {
    const report = join(scratch, 'ltrace.txt');
    const r = once('ltrace', ['-c', '-L', '-x', 'traced', '-o', report, program, String(CALLS)]);
    const row = readFileSync(report, 'utf8')
      .split('\n')
      .find((line) => / traced$/.test(line.trim()));
    return { ...r, last: row?.trim().split(/\s+/)[3] };
  },
};
const results = { rea: [], floor: [], ltrace: [] };
for (let i = 0; i < RUNS; i++) {
  for (const [name, run] of Object.entries(contenders)) {
    const r = run();
    if (r.last !== expected) throw new Error(`${name} counted ${r.last}, expected ${expected}`);
    results[name].push(r);
  }
}
console.log(`trace: ${CALLS} calls of traced(), every run counted exactly`);
const rea = summary('observe_native_calls (fresh Node):', results.rea);
const floor = summary('hand-written LLDB script (floor):', results.floor);
const ltrace = summary('ltrace -c -L -x traced:', results.ltrace);
console.log(
  `  ratio to the floor: wall ${(rea.ms / floor.ms).toFixed(2)}x, cpu ${(rea.cpu / floor.cpu).toFixed(2)}x (target: within 1.5x); ` +
    `to ltrace: wall ${(rea.ms / ltrace.ms).toFixed(2)}x; per call: REA ${((rea.ms / CALLS) * 1000).toFixed(0)} us, ` +
    `floor ${((floor.ms / CALLS) * 1000).toFixed(0)} us, ltrace ${((ltrace.ms / CALLS) * 1000).toFixed(0)} us`,
);

const direct = [];
const captured = [];
const total = String((1000 * 1001) / 2); // the sum of traced(i) = i + 1 for i < 1000
for (let i = 0; i < CAPTURE_RUNS; i++) {
  const d = once(program, ['1000']);
  const c = once(process.execPath, [join(here, 'child.mjs'), 'capture', program, '1000']);
  if (d.last !== total || c.last !== total) throw new Error(`capture printed ${c.last}, direct ${d.last}`);
  direct.push(d);
  captured.push(c);
}
console.log(`capture: ${program.split('/').at(-1)} 1000 (prints one line)`);
const d = summary('run directly:', direct);
const c = summary('capture_process_scenario (fresh Node):', captured);
console.log(
  `  ratio: wall ${(c.ms / d.ms).toFixed(1)}x, extra wall ${fmt(c.ms - d.ms)} (Node start, supervisor, lineage, cleanup)`,
);
console.log(`load average at end: ${load()}`);

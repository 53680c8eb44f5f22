// Start-up cost of the `rea` executable against plain Node.js, in the same run: `rea --version` and
// `rea --help` must answer without loading the CLI, the catalog or any provider. Also times a command
// that does load the catalog (`rea --llms`), for scale. Reports medians and ratios to `node -e 0`.
// Target: `rea --version` and `rea --help` under 150 ms where `node -e 0` takes about 50 ms (< 3x).
// Usage: node bench/cli/run.mjs [--runs N]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 21;
const bin = join(dirname(createRequire(import.meta.url).resolve('rea/package.json')), 'dist', 'bin.js');

function time(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const cases = [
  ['node -e 0', ['-e', '0']],
  ['rea --version', [bin, '--version']],
  ['rea --help', [bin, '--help']],
  ['rea --llms (loads the catalog)', [bin, '--llms']],
];
const samples = new Map(cases.map(([name]) => [name, []]));
// Interleave the cases so that machine load affects them alike.
for (let i = 0; i < runs; i += 1) {
  for (const [name, args] of cases) {
    if (name.startsWith('rea --llms') && i % 4 !== 0) continue;
    samples.get(name).push(time(args));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(samples.get('node -e 0'));
console.log(`runs: ${runs} (interleaved); bin: ${bin}`);
for (const [name] of cases) {
  const m = median(samples.get(name));
  console.log(`${name.padEnd(32)} median ${m.toFixed(1).padStart(7)} ms   ${(m / base).toFixed(2)}x node -e 0`);
}
const worst = Math.max(median(samples.get('rea --version')), median(samples.get('rea --help')));
console.log(`target: --version/--help within 3x node -e 0 (150 ms vs 50 ms): ${worst / base <= 3 ? 'met' : 'NOT met'}`);

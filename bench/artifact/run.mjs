// Container benchmark: inventory+hash and extraction of a ~200 MB, ~20,000-entry ZIP against unzip,
// and ASAR extraction against @electron/asar's extractAll, on the same inputs in the same run.
// Prints ratios (REA time / reference time); lower is better. Needs the built @rea/artifact.
// Usage: node bench/artifact/run.mjs [--entries N] [--mb M] [--runs R]
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as asar from '@electron/asar';
import { extractArtifact, inspectArtifact } from '@rea/artifact';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const ENTRIES = option('entries', 20_000);
const MEGABYTES = option('mb', 200);
const RUNS = option('runs', 3);

const work = mkdtempSync(join(tmpdir(), 'rea-bench-artifact-'));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** Files of mixed compressibility, about MEGABYTES in total, spread over nested folders. */
function makeTree(root, entries, megabytes) {
  const average = Math.floor((megabytes * 1024 * 1024) / entries);
  const text = Buffer.from('function example(value) { return value * 2; } // padding text\n'.repeat(4096));
  for (let i = 0; i < entries; i += 1) {
    const dir = join(root, `d${i % 97}`, `e${i % 13}`);
    if (i < 97 * 13) mkdirSync(dir, { recursive: true });
    const size = Math.max(1, Math.floor(average * (0.25 + ((i * 7919) % 1500) / 1000)));
    // Mostly random (incompressible) with some text, so the archive stays near the stated size.
    const random = randomBytes(Math.floor(size * 0.9));
    writeFileSync(join(dir, `f${i}.bin`), Buffer.concat([random, text.subarray(0, size - random.length)]));
  }
}

/** Wall and CPU milliseconds of an in-process task (CPU covers every thread of this process). */
async function measure(fn) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 };
}

/** Wall and CPU milliseconds of a reference command, CPU as reported by bash's `time`. */
function measureCommand(command, commandArgs) {
  const start = performance.now();
  const quoted = [command, ...commandArgs].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const result = spawnSync('bash', ['-c', `TIMEFORMAT='%U %S'; time ${quoted} >/dev/null`], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const [user, system] = result.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall: performance.now() - start, cpu: (user + system) * 1000 };
}

async function compare(label, ours, reference, cleanup = () => {}) {
  const a = [];
  const b = [];
  for (let run = 0; run < RUNS; run += 1) {
    // Alternate who goes first so page-cache warmth favours neither.
    const order = run % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    for (const who of order) {
      if (who === 'a') a.push(await measure(ours));
      else b.push(await reference());
      cleanup();
    }
  }
  const wall = median(a.map((m) => m.wall)) / median(b.map((m) => m.wall));
  const cpu = median(a.map((m) => m.cpu)) / median(b.map((m) => m.cpu));
  console.log(
    `${label}: REA ${fmt(median(a.map((m) => m.wall)))} wall / ${fmt(median(a.map((m) => m.cpu)))} cpu; ` +
      `reference ${fmt(median(b.map((m) => m.wall)))} wall / ${fmt(median(b.map((m) => m.cpu)))} cpu; ` +
      `ratio ${wall.toFixed(2)}x wall, ${cpu.toFixed(2)}x cpu (median of ${RUNS})`,
  );
  return { wall, cpu };
}

/** The load average, printed beside the figures: wall-clock ratios on a busy host are noisy. */
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

try {
  // Load every lazily imported module first, so the timed runs measure work, not module loading.
  const warm = join(work, 'warm');
  mkdirSync(join(warm, 'src'), { recursive: true });
  writeFileSync(join(warm, 'src', 'a.txt'), 'warm');
  execFileSync('zip', ['-q', '-r', join(warm, 'w.zip'), 'src'], { cwd: warm });
  await asar.createPackage(join(warm, 'src'), join(warm, 'w.asar'));
  for (const file of ['w.zip', 'w.asar']) {
    await inspectArtifact(join(warm, file));
    await extractArtifact(join(warm, file), { parentDirectory: warm });
  }
  const tree = join(work, 'tree');
  mkdirSync(tree);
  console.log(`generating ${ENTRIES} files (~${MEGABYTES} MB) ... (load average ${load()})`);
  makeTree(tree, ENTRIES, MEGABYTES);
  const zip = join(work, 'big.zip');
  execFileSync('zip', ['-q', '-r', '-1', zip, '.'], { cwd: tree });
  console.log(`ZIP: ${(statSync(zip).size / 1024 / 1024).toFixed(1)} MiB, ${ENTRIES} files`);

  await compare(
    'inventory+hash vs unzip -t',
    async () => {
      const { inventory, coverage } = await inspectArtifact(zip);
      if (coverage.status !== 'complete' || inventory.file_count !== ENTRIES) throw new Error('incomplete inventory');
    },
    () => measureCommand('unzip', ['-tqq', zip]),
  );

  const out = join(work, 'out');
  const clean = () => rmSync(out, { recursive: true, force: true });
  const extraction = await compare(
    'extraction vs unzip -q -o',
    async () => {
      mkdirSync(out, { recursive: true });
      await extractArtifact(zip, { parentDirectory: out });
    },
    () => measureCommand('unzip', ['-q', '-o', zip, '-d', out]),
    clean,
  );

  // An application-sized archive: a tenth of the tree.
  const appSource = join(work, 'app');
  mkdirSync(appSource);
  for (let d = 0; d < 10; d += 1) execFileSync('cp', ['-r', join(tree, `d${d}`), appSource]);
  const archive = join(work, 'app.asar');
  await asar.createPackageWithOptions(appSource, archive, {});
  console.log(`ASAR: ${(statSync(archive).size / 1024 / 1024).toFixed(1)} MiB`);
  const asarRatio = await compare(
    'ASAR extraction vs @electron/asar extractAll',
    async () => {
      mkdirSync(out, { recursive: true });
      await extractArtifact(archive, { parentDirectory: out });
    },
    () => measure(() => asar.extractAll(archive, join(out, 'ref'))),
    clean,
  );
  const peak = process.resourceUsage().maxRSS / 1024;
  console.log(`peak RSS of this process: ${peak.toFixed(0)} MiB`);
  console.log(`load average: ${load()}`);
  console.log(
    `target: ZIP extraction within 1.25x of unzip -> wall ${extraction.wall.toFixed(2)}x, cpu ${extraction.cpu.toFixed(2)}x; ` +
      `ASAR extraction vs extractAll -> wall ${asarRatio.wall.toFixed(2)}x, cpu ${asarRatio.cpu.toFixed(2)}x`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

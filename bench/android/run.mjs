// @rea/provider-android benchmark against the reference tools on the same input in the same run:
//   manifest: inspect_android_package (whole package: central directory, manifest, resources, signing
//     with every scheme verified, DEX counts) vs `aapt dump badging`, on the largest APK available;
//   DEX listing: every class and method with its prototype (DexFile) vs `dexdump`, on the largest DEX.
// Each contender runs in its own process (start-up counted for all), interleaved run by run; ratios
// are of medians, CPU time (user + system) beside wall time; peak RSS from GNU time. Also in process:
// the decoders alone on bytes in memory.
// The whole `rea` command line (`rea inspect-android-package <apk>`) runs as one more fresh-process
// contender. Then the warm server (see ./warm.mjs): one `rea mcp` answering inspect_android_package and
// a listing of every class (search_android_classes, all pages) on fresh copies of the same files,
// interleaved with aapt and dexdump; its first call is reported apart from the later ones.
// --previous <dist>: a previous build's packages/providers/android/dist, interleaved as one more
// contender in both races, for a before/after comparison on the same load. Place it inside
// packages/providers/android (e.g. .tmp/base/dist) so that its imports resolve.
// --previous-rea <bin.cjs>: a previous build of packages/rea (its dist/bin.cjs, placed inside packages/rea,
// e.g. .tmp/base/dist/bin.cjs), run beside this one in the whole-process and warm-server races.
// Usage: node bench/android/run.mjs [--runs N] [--previous dist] [--previous-rea bin.cjs] [apk] [dex]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DexFile, ResourceTable, parseBinaryXml } from '@rea/provider-android';
import { warmRace } from './warm.mjs';

const args = process.argv.slice(2);
function option(name, fallback) {
  const at = args.indexOf(name);
  if (at === -1) return fallback;
  const [, value] = args.splice(at, 2);
  return value;
}
const RUNS = Number(option('--runs', '7'));
const previousOption = option('--previous', null);
const previous = previousOption === null ? null : resolve(previousOption);
const previousReaOption = option('--previous-rea', null);
const previousRea = previousReaOption === null ? null : resolve(previousReaOption);
const here = dirname(fileURLToPath(import.meta.url));
const reaBin = resolve(here, '../../packages/rea/dist/bin.cjs');
const SAMPLES = '/usr/share/doc/androguard/examples';

function largest(ext) {
  let best = null;
  const walk = (dir, depth) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 6) walk(path, depth + 1);
      else if (entry.isFile() && entry.name.endsWith(ext)) {
        const { size } = statSync(path);
        if (!best || size > best.size) best = { path, size };
      }
    }
  };
  walk(SAMPLES, 0);
  return best?.path ?? null;
}

const apk = args[0] ?? largest('.apk');
const dex = args[1] ?? largest('.dex');
for (const tool of ['aapt', 'dexdump']) {
  if (spawnSync(tool, ['-h'], { stdio: 'ignore' }).error) {
    console.log(`skipped: ${tool} is not installed`);
    process.exit(0);
  }
}
if (!apk || !dex || !existsSync('/usr/bin/time')) {
  console.log('skipped: no APK/DEX under the androguard samples, or no GNU time');
  process.exit(0);
}

function once(command, args) {
  const started = performance.now();
  const result = spawnSync('/usr/bin/time', ['-f', 'rss %M cpu %U %S', command, ...args], {
    cwd: here,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const wall = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const [, rss, user, system] = /rss (\d+) cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr) ?? [];
  return { wall, rss: Number(rss), cpu: (Number(user) + Number(system)) * 1000 };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Interleaved runs of each contender; medians of wall time and peak RSS (KiB). */
function race(contenders) {
  const samples = contenders.map(() => ({ wall: [], rss: [], cpu: [] }));
  for (let i = 0; i < RUNS; i++) {
    contenders.forEach(([, command, argv], k) => {
      const { wall, rss, cpu } = once(command, argv);
      samples[k].wall.push(wall);
      samples[k].rss.push(rss);
      samples[k].cpu.push(cpu);
    });
  }
  return samples.map((s) => ({ wall: median(s.wall), rss: median(s.rss), cpu: median(s.cpu) }));
}

function inProcess(fn) {
  const wall = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    fn();
    wall.push(performance.now() - started);
  }
  return median(wall);
}

for (const path of [apk, dex]) spawnSync('cat', [path], { stdio: 'ignore' });
const child = join(here, 'child.mjs');
console.log(`APK: ${apk} (${(statSync(apk).size / 1e6).toFixed(1)} MB)`);
console.log(`DEX: ${dex} (${(statSync(dex).size / 1e6).toFixed(1)} MB)`);
if (previous !== null) console.log(`previous build: ${previous}`);
// Start-up alone (Node.js, then importing the provider's index with its dependencies) is measured as
// a contender of its own, so that the work is the fresh-process figure less this one.
const before = previous === null ? [] : [previous];
const reaBins = [['this build', reaBin], ...(previousRea === null ? [] : [['previous build', previousRea]])];
const [aapt, reaManifest, startUp, bareNode, ...more] = race([
  ['aapt', 'aapt', ['dump', 'badging', apk]],
  ['rea', process.execPath, [child, 'manifest', apk]],
  ['start-up', process.execPath, [child, 'start-up']],
  ['node', process.execPath, ['-e', '0']],
  ...reaBins.map(([, bin]) => ['rea cli', process.execPath, [bin, 'inspect-android-package', apk]]),
  ['rea cli, no verification', process.execPath, [reaBin, 'inspect-android-package', apk, '--no-verify-signatures']],
  ...before.map((dist) => ['previous', process.execPath, [child, 'manifest', apk, dist]]),
]);
const reaCli = more.slice(0, reaBins.length);
const reaCliLight = more[reaBins.length];
const previousManifest = more[reaBins.length + 1];
const [dexdump, reaDex, previousDex] = race([
  ['dexdump', 'dexdump', [dex]],
  ['rea', process.execPath, [child, 'dex', dex]],
  ...before.map((dist) => ['previous', process.execPath, [child, 'dex', dex, dist]]),
]);
const manifestBytes = execFileSync('unzip', ['-p', apk, 'AndroidManifest.xml']);
const arscBytes = execFileSync('unzip', ['-p', apk, 'resources.arsc'], { maxBuffer: 1 << 30 });
const dexBytes = readFileSync(dex);
const decodeManifest = inProcess(() => {
  const table = new ResourceTable(arscBytes);
  parseBinaryXml(manifestBytes);
  table.summary();
});
const listDex = inProcess(() => {
  const file = new DexFile(dexBytes);
  for (let i = 0; i < file.classDefs.size; i++) {
    const data = file.classData(file.classDef(i).classDataOff);
    for (const m of [...data.directMethods, ...data.virtualMethods]) file.method(m.index);
  }
});

const ms = (v) => `${v.toFixed(0).padStart(6)} ms`;
const row = (label, figure, reference) =>
  console.log(
    `${label.padEnd(72)} wall ${ms(figure.wall)} cpu ${ms(figure.cpu)}  ` +
      (figure.rss > 0 ? `rss ${String(Math.round(figure.rss / 1024)).padStart(4)} MiB` : ' '.repeat(12)) +
      (reference
        ? `  ratio wall ${(figure.wall / reference.wall).toFixed(2)}x cpu ${(figure.cpu / reference.cpu).toFixed(2)}x`
        : ''),
  );
const classCount = new DexFile(dexBytes).classDefs.size;
const pages = Math.ceil(classCount / 2000);
const warm = await warmRace(
  reaBins,
  [
    ['inspect', 'inspect_android_package', (path) => [{ path }], ['aapt', (p) => ['dump', 'badging', p]], apk],
    [
      'inspect, no verification',
      'inspect_android_package',
      (path) => [{ path, verify_signatures: false }],
      ['aapt', (p) => ['dump', 'badging', p]],
      apk,
      true,
    ],
    [
      'classes',
      'search_android_classes',
      (path) => Array.from({ length: pages }, (_, i) => ({ path, offset: i * 2000, limit: 2000 })),
      ['dexdump', (p) => [p]],
      dex,
    ],
  ],
  RUNS + 1,
  once,
);

console.log(`${RUNS} interleaved runs each, medians; ratios are REA / reference (below 1 is faster)`);
row('aapt dump badging', aapt);
reaCli.forEach((figure, i) => row(`REA \`rea inspect-android-package\`, ${reaBins[i][0]}`, figure, aapt));
row('REA `rea inspect-android-package --no-verify-signatures`', reaCliLight, aapt);
row('REA inspect_android_package, fresh process', reaManifest, aapt);
row('dexdump (classes, fields, methods)', dexdump);
row('REA DEX class+method listing, fresh process', reaDex, dexdump);
if (previous !== null) {
  row('previous build: inspect_android_package', previousManifest, aapt);
  row('previous build: DEX listing', previousDex, dexdump);
  row('this build / previous: inspect_android_package', reaManifest, previousManifest);
  row('this build / previous: DEX listing', reaDex, previousDex);
}
row('node -e 0', bareNode);
row('start-up: node + import @rea/provider-android', startUp);
const less = (a, b) => ({ wall: a.wall - b.wall, cpu: a.cpu - b.cpu, rss: a.rss });
row('REA inspect_android_package less start-up', less(reaManifest, startUp), aapt);
row('REA DEX listing less start-up', less(reaDex, startUp), dexdump);
console.log(`${'REA manifest + resources.arsc decode, in process'.padEnd(72)} wall ${ms(decodeManifest)}`);
console.log(`${'REA DEX class+method listing, in process'.padEnd(72)} wall ${ms(listDex)}`);
const rows = (values) => ({
  wall: median(values.map((v) => v.wall)),
  cpu: median(values.map((v) => v.cpu)),
  rss: 0,
});
console.log(
  `warm server: one \`rea mcp\` per build over stdio, ${RUNS + 1} calls each on fresh copies, interleaved with the reference; ` +
    `search_android_classes lists all ${classCount} classes in ${pages} page(s); peak RSS ` +
    warm.rss.map((r, i) => `${warm.labels[i]} ${Math.round((r ?? 0) / 1048576)} MiB`).join(', '),
);
for (const [k, [name, reference]] of [
  ['inspect_android_package', 'aapt dump badging'],
  ['inspect_android_package, no verification', 'aapt dump badging'],
  ['search_android_classes, every class', 'dexdump'],
].entries()) {
  const ref = rows(warm.samples[k].reference);
  row(`${reference}, beside ${name}`, ref);
  warm.samples[k].servers.forEach((values, s) => {
    if (values.length === 0) return;
    row(`${name}, ${warm.labels[s]}, first call`, { ...values[0], rss: 0 }, ref);
    row(`${name}, ${warm.labels[s]}, later calls`, rows(values.slice(1)), ref);
  });
}
// The target (faster than both) is judged where REA answers these calls: a running server, each call on
// a fresh copy of the file, against a fresh run of the reference beside it (later calls; the first call
// of a server is reported above). A fresh process of REA is also given, against the reference: it
// carries Node.js's own start-up (`node -e 0` above), which no work of REA's can remove.
const warmRatio = (k) =>
  median(warm.samples[k].servers[0].slice(1).map((v) => v.wall)) / median(warm.samples[k].reference.map((v) => v.wall));
const verdict = (ratio) => `${ratio.toFixed(2)}x, ${ratio < 1 ? 'met' : 'NOT met'}`;
console.log(
  `target (faster than both), warm server: manifest without verification ${verdict(warmRatio(1))}; ` +
    `DEX listing ${verdict(warmRatio(2))}`,
);
console.log(
  `fresh process (Node.js start-up included): manifest ${(reaManifest.wall / aapt.wall).toFixed(2)}x, ` +
    `DEX listing ${(reaDex.wall / dexdump.wall).toFixed(2)}x`,
);
console.log(
  `load average: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${cpus().length} CPUs`,
);

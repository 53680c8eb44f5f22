// Archive rows on this machine's own files: a ZIP (>= 90 MB, >= 5,000 entries) built at bench time from
// /usr, then, in one interleaved run on the same inputs:
//   inspect_artifact (inventory + SHA-256 of every entry) against `unzip -tqq`,
//   the same over a warm MCP connection to the built `rea mcp` (the issue's own measure: the call as a
//   client sees it, with the result's validation, sealing and the response's writing;
//   bench/artifact/mcpCall.mjs, a fresh server per call, the server's CPU time and peak RSS),
//   and, in the same runs, the same requests to a one-tool server on the same Node.js, MCP SDK and zod
//   (bench/artifact/floorServer.mjs): the memory floor of this stack, below which no such server's peak goes,
//   extract_artifact of 500 selected files against `unzip -q -o <zip> <names> -d <dir>`,
//   the extract_artifact tool as a server runs it (executeTool) on the same selection, against the same,
// each REA call in a fresh process after a warm-up (bench/artifact/call.mjs), with its peak RSS, and a
// scaling table of the inventory (time and peak memory at 4 archive sizes, with the fitted growth).
// Ratios are of medians (REA / reference), of wall time and of CPU time (every thread); lower is better.
// The load average is printed beside each row: on a shared machine wall ratios are noisy, CPU ratios less.
// With --baseline (the dist/index.js of another build of @rea/artifact, e.g. a worktree of an earlier
// commit), that build runs too, interleaved with the others on the same inputs, and every row and the
// scaling table give its figures beside the current build's ("before").
// Needs the built @rea/artifact and rea-mcp, zip, unzip. --baseline applies to the library rows and the
// scaling table, not to the MCP row.
//   node bench/artifact/machine.mjs [--mb 220] [--entries 6000] [--runs 5] [--scaling 0] [--baseline <index.js>]
//   (--mb: uncompressed bytes gathered; --scaling 0 leaves out the scaling table)
import { execFileSync, spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const args = process.argv.slice(2);
const option = (name, fallback) =>
  args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback;
const MEGABYTES = option('mb', 220);
const ENTRIES = option('entries', 6000);
const RUNS = option('runs', 5);
const SCALING = option('scaling', 1) !== 0;
const BASELINE = args.includes('--baseline') ? args[args.indexOf('--baseline') + 1] : null;
const call = join(dirname(fileURLToPath(import.meta.url)), 'call.mjs');
const mcpCall = join(dirname(fileURLToPath(import.meta.url)), 'mcpCall.mjs');
const work = mkdtempSync(join(tmpdir(), 'rea-bench-machine-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const mib = (bytes) => (bytes / 1048576).toFixed(0);
// Archives inside the archive would be inventoried by REA and not by unzip: left out.
const SKIP = /\.(zip|jar|apk|aar|whl|egg|asar|xpi|crx|nupkg|vsix|ipa|msix|appx|docx|xlsx|pptx|odt|ods|epub)$/i;

/** Regular files under /usr, in a stable order, until both the size and the count are reached. */
function machineFiles(megabytes, entries) {
  const files = [];
  let bytes = 0;
  const walk = (dir) => {
    let names;
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (bytes >= megabytes * 1e6 && files.length >= entries) return;
      const path = join(dir, name);
      let info;
      try {
        info = lstatSync(path);
      } catch {
        continue;
      }
      if (info.isDirectory()) walk(path);
      else if (info.isFile() && info.size <= 2 << 20 && !SKIP.test(name)) {
        try {
          accessSync(path, constants.R_OK);
        } catch {
          continue;
        }
        files.push(path);
        bytes += info.size;
      }
    }
  };
  for (const root of ['/usr/share', '/usr/lib', '/usr/bin', '/usr/libexec']) walk(root);
  return files;
}

/** Wall ms, CPU ms and peak RSS (bytes) of a reference command, through GNU time. */
function reference(command, commandArgs) {
  const start = performance.now();
  const result = spawnSync('/usr/bin/time', ['-f', '%M %U %S', command, ...commandArgs], { encoding: 'utf8' });
  const wall = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const [kib, user, system] = result.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { wall, cpu: (user + system) * 1000, peakRss: kib * 1024 };
}

function rea(...callArgs) {
  return reaOf(undefined, ...callArgs);
}

const verifiedOnce = new Set();

/**
 * One call of the build at `module` (the current build when undefined), in a fresh process. The first
 * call of each operation of each build is verified after timing: every SHA-256 it reports, and every
 * file it extracts, against the machine's own file.
 */
function reaOf(module, ...callArgs) {
  const key = `${module}:${callArgs[0]}:${callArgs[1]}`;
  const verify = !verifiedOnce.has(key);
  verifiedOnce.add(key);
  const env = {
    ...process.env,
    ...(module === undefined ? {} : { REA_ARTIFACT: module }),
    REA_BENCH_VERIFY: verify ? '1' : '0',
  };
  const result = spawnSync(process.execPath, [call, ...callArgs], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`REA call failed: ${result.stderr}`);
  const measured = JSON.parse(result.stdout.trim().split('\n').pop());
  if (verify)
    console.log(
      `  (${module ?? 'current build'} ${callArgs[0]}: ${measured.verified} files checked against the machine's own)`,
    );
  return measured;
}

/**
 * One inspect_artifact call over a warm MCP connection to the current build's `rea mcp`, in a fresh
 * server process (bench/artifact/mcpCall.mjs): the call as a client sees it, with the result's
 * validation, sealing, retention and the response's writing. Verified on its first run as reaOf does.
 */
function reaMcp(zip) {
  const verify = !verifiedOnce.has(`mcp:${zip}`);
  verifiedOnce.add(`mcp:${zip}`);
  const env = { ...process.env, REA_BENCH_VERIFY: verify ? '1' : '0' };
  const result = spawnSync(process.execPath, [mcpCall, zip], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
  if (result.status !== 0) throw new Error(`REA MCP call failed: ${result.stderr}`);
  const measured = JSON.parse(result.stdout.trim().split('\n').pop());
  if (verify) console.log(`  (current build over MCP: ${measured.verified} files checked against the machine's own)`);
  return measured;
}

/**
 * The same requests to bench/artifact/floorServer.mjs (mcpCall.mjs --floor): a server on the same
 * Node.js, MCP SDK and zod with one `echo` tool, whose peak RSS is the floor of any server of this stack.
 */
function mcpFloor(zip) {
  const result = spawnSync(process.execPath, [mcpCall, zip, '--floor'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the floor server failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

/**
 * Interleaved runs (alternating who goes first; the baseline build, when given, between them);
 * medians of wall, CPU and of REA's peak RSS above its start.
 */
function compare(ours, theirs, cleanup = () => {}, before = null) {
  const a = [];
  const b = [];
  const c = [];
  const order = before === null ? ['a', 'b'] : ['a', 'c', 'b'];
  for (let run = 0; run < RUNS; run += 1) {
    for (const who of run % 2 === 0 ? order : [...order].reverse()) {
      if (who === 'a') a.push(ours());
      else if (who === 'b') b.push(theirs());
      else c.push(before());
      cleanup();
    }
  }
  const of = (xs) => ({
    rea: median(xs.map((m) => m.wall)),
    reaCpu: median(xs.map((m) => m.cpu)),
    reaPeak: median(xs.map((m) => m.peakRss)),
    reaGrowth: median(xs.map((m) => m.peakRss - m.rssBefore)),
  });
  return {
    ...of(a),
    ref: median(b.map((m) => m.wall)),
    refCpu: median(b.map((m) => m.cpu)),
    refPeak: median(b.map((m) => m.peakRss)),
    before: c.length > 0 ? of(c) : null,
  };
}

const row = (label, r, loadBefore, beside = null) => {
  console.log(
    `${label}: REA ${r.rea.toFixed(0)} ms wall, ${r.reaCpu.toFixed(0)} ms CPU, peak RSS ${mib(r.reaPeak)} MiB (+${mib(r.reaGrowth)} MiB during the call); ` +
      `reference ${r.ref.toFixed(0)} ms wall, ${r.refCpu.toFixed(0)} ms CPU, ${mib(r.refPeak)} MiB; ` +
      `ratio ${(r.rea / r.ref).toFixed(2)}x wall, ${(r.reaCpu / r.refCpu).toFixed(2)}x CPU (median of ${RUNS}; load ${loadBefore} before, ${load()} after)`,
  );
  const b = r.before;
  if (b !== null && beside !== null)
    console.log(
      `  ${beside} (same runs): peak RSS ${mib(b.reaPeak)} MiB; REA's peak is ${mib(r.reaPeak - b.reaPeak)} MiB above it`,
    );
  else if (b !== null)
    console.log(
      `  before (baseline build, same runs): REA ${b.rea.toFixed(0)} ms wall, ${b.reaCpu.toFixed(0)} ms CPU, peak RSS ${mib(b.reaPeak)} MiB (+${mib(b.reaGrowth)} MiB); ` +
        `ratio ${(b.rea / r.ref).toFixed(2)}x wall, ${(b.reaCpu / r.refCpu).toFixed(2)}x CPU`,
    );
};

/** Least-squares slope of log(y) against log(x): 1 is linear growth. */
function growth(xs, ys) {
  const lx = xs.map(Math.log);
  const ly = ys.map(Math.log);
  const mx = lx.reduce((s, v) => s + v, 0) / lx.length;
  const my = ly.reduce((s, v) => s + v, 0) / ly.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < lx.length; i += 1) {
    num += (lx[i] - mx) * (ly[i] - my);
    den += (lx[i] - mx) ** 2;
  }
  return num / den;
}

/** Time and peak memory of the inventory against archive size, with the fitted growth. */
function scaling(zips) {
  console.log('scaling of inspect_artifact (medians):');
  console.log(
    '  archive MB | files | REA ms | unzip -t ms | ratio | REA CPU ms | unzip CPU ms | REA +RSS MiB | REA peak MiB' +
      (BASELINE ? ' | before ms | before ratio | before CPU ms | before +RSS MiB' : ''),
  );
  const points = [];
  for (const { zip, count, bytes } of zips) {
    const r = compare(
      () => rea('inspect', zip),
      () => reference('unzip', ['-tqq', zip]),
      undefined,
      BASELINE ? () => reaOf(BASELINE, 'inspect', zip) : null,
    );
    points.push({ bytes, ...r });
    const b = r.before;
    console.log(
      `  ${(bytes / 1e6).toFixed(1).padStart(10)} | ${String(count).padStart(5)} | ${r.rea.toFixed(0).padStart(6)} | ` +
        `${r.ref.toFixed(0).padStart(11)} | ${(r.rea / r.ref).toFixed(2).padStart(5)} | ` +
        `${r.reaCpu.toFixed(0).padStart(10)} | ${r.refCpu.toFixed(0).padStart(12)} | ${mib(r.reaGrowth).padStart(12)} | ${mib(r.reaPeak).padStart(12)}` +
        (b
          ? ` | ${b.rea.toFixed(0).padStart(9)} | ${(b.rea / r.ref).toFixed(2).padStart(12)} | ` +
            `${b.reaCpu.toFixed(0).padStart(13)} | ${mib(b.reaGrowth).padStart(15)}`
          : ''),
    );
  }
  const xs = points.map((p) => p.bytes);
  console.log(
    `fitted growth (log-log slope against archive size; 1 = linear): REA time ${growth(
      xs,
      points.map((p) => p.rea),
    ).toFixed(2)}, ` +
      `unzip time ${growth(
        xs,
        points.map((p) => p.ref),
      ).toFixed(2)}, REA memory during the call ${growth(
        xs,
        points.map((p) => Math.max(1, p.reaGrowth)),
      ).toFixed(2)}` +
      (BASELINE
        ? `; before: REA time ${growth(
            xs,
            points.map((p) => p.before.rea),
          ).toFixed(2)}, REA memory during the call ${growth(
            xs,
            points.map((p) => Math.max(1, p.before.reaGrowth)),
          ).toFixed(2)}`
        : ''),
  );
}

try {
  console.log(`collecting this machine's files (>= ${MEGABYTES} MB, >= ${ENTRIES} files) ... (load ${load()})`);
  const files = machineFiles(MEGABYTES, ENTRIES);
  const sizes = (SCALING ? [8, 4, 2, 1] : [1]).map((d) => Math.ceil(files.length / d));
  const zips = [];
  for (const count of sizes) {
    const zip = join(work, `m${count}.zip`);
    execFileSync('zip', ['-q', '-@', zip], { input: files.slice(0, count).join('\n') });
    zips.push({ zip, count, bytes: statSync(zip).size });
  }
  const full = zips.at(-1);
  console.log(
    `ZIP: ${(full.bytes / 1e6).toFixed(1)} MB, ${full.count} files (and ${sizes.slice(0, -1).join(', ') || 'none'} for scaling)`,
  );

  let before = load();
  row(
    'inspect_artifact vs unzip -tqq',
    compare(
      () => rea('inspect', full.zip),
      () => reference('unzip', ['-tqq', full.zip]),
      undefined,
      BASELINE ? () => reaOf(BASELINE, 'inspect', full.zip) : null,
    ),
    before,
  );

  before = load();
  row(
    'inspect_artifact over MCP (rea mcp over stdio, warm connection, raw JSON-RPC) vs unzip -tqq',
    compare(
      () => reaMcp(full.zip),
      () => reference('unzip', ['-tqq', full.zip]),
      undefined,
      () => mcpFloor(full.zip),
    ),
    before,
    'memory floor of this stack: a one-tool server on the same Node.js, MCP SDK and zod, same requests',
  );

  const listed = execFileSync('unzip', ['-Z1', full.zip], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .trim()
    .split('\n');
  const step = Math.max(1, Math.floor(listed.length / 500));
  const names = listed.filter((_, i) => i % step === 0).slice(0, 500);
  const namesFile = join(work, 'names.txt');
  writeFileSync(namesFile, names.join('\n'));
  const out = join(work, 'out');
  const selectedBytes = names.reduce((sum, name) => sum + statSync(`/${name}`).size, 0);
  console.log(`selection: ${names.length} files, ${(selectedBytes / 1e6).toFixed(1)} MB`);
  before = load();
  row(
    'extract_artifact (500 files) vs unzip -q -o',
    compare(
      () => (mkdirSync(out, { recursive: true }), rea('extract', full.zip, namesFile, out)),
      () => (mkdirSync(out, { recursive: true }), reference('unzip', ['-q', '-o', full.zip, ...names, '-d', out])),
      () => rmSync(out, { recursive: true, force: true }),
      BASELINE
        ? () => (mkdirSync(out, { recursive: true }), reaOf(BASELINE, 'extract', full.zip, namesFile, out))
        : null,
    ),
    before,
  );

  before = load();
  row(
    'extract_artifact tool (500 files; executeTool, as a server runs it) vs unzip -q -o',
    compare(
      () => rea('extract-tool', full.zip, namesFile),
      () => (mkdirSync(out, { recursive: true }), reference('unzip', ['-q', '-o', full.zip, ...names, '-d', out])),
      () => rmSync(out, { recursive: true, force: true }),
      BASELINE ? () => reaOf(BASELINE, 'extract-tool', full.zip, namesFile) : null,
    ),
    before,
  );

  if (SCALING) scaling(zips);
  console.log(`load average: ${load()}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

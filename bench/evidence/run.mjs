// @rea/evidence benchmarks, each against a reference on the same input in the same run:
// (1) canonicalize-and-hash a ~50 MB record: REA's streaming canonicalSha256 vs the `canonicalize`
//     package + node:crypto, and vs plain SHA-256 of the same canonical bytes (the limit);
// (2) export of ~1 GiB of Evidence as a bundle, in a child process whose peak RSS is measured, vs `cp`
//     of the resulting file.
// Targets: (1) >= 1x canonicalize+crypto and >= 0.5x plain SHA-256; (2) peak RSS < 256 MB.
// (1) also prints two reference lines that bound what any serializer written in JavaScript can reach:
//     a walk that visits every value and writes nothing, and V8's own (non-canonical) JSON.stringify.
// Usage: node bench/evidence/run.mjs [--small]   (--small: 5 MB record and 64 MiB export, for a smoke run)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import canonicalize from 'canonicalize';
import { canonicalSha256, exportBundle, sealEvidence, writeCanonicalBytes } from '@rea/evidence';

const MB = 1e6;
const MiB = 1024 * 1024;
const small = process.argv.includes('--small');

/** An analysis result of about `bytes` canonical bytes: assembly rows, some non-ASCII text. */
function analysisResult(bytes, seed) {
  const rows = [];
  for (let size = 0, i = 0; size < bytes; i += 1) {
    const row = {
      address: `0x${(0x401000 + seed * 0x100000 + i * 4).toString(16)}`,
      mnemonic: i % 3 === 0 ? 'call' : 'mov',
      operands: `rax, qword ptr [rbp - 0x${(i % 512).toString(16)}]`,
      bytes: 'f30f1efa4889e5',
      size: 4,
      references: [i, i + 1],
      flags: { entry: i === 0, fallthrough: true },
      comment: i % 7 === 0 ? `boucle ${i} — « étiquette » 😀 "quoted"\t` : null,
    };
    rows.push(row);
    size += 190;
  }
  return {
    procedure: { address: `0x${(0x401000 + seed * 0x100000).toString(16)}`, name: `fn_${seed}`, assembly: rows },
  };
}

function observation(seed, bytes) {
  return {
    operation: 'analyze_function',
    subject: { format: 'elf', sha256: createHash('sha256').update(`target`).digest('hex'), size: 1 << 24 },
    provider: { id: 'capstone', name: 'Capstone', version: '5.0.1' },
    analysis_profile: null,
    parameters: { address: `0x${(0x401000 + seed * 0x100000).toString(16)}` },
    normalized_result: analysisResult(bytes, seed),
    raw_result: null,
    confidence: 'observed',
    limitations: [],
    coverage: { status: 'complete', reasons: [] },
    locations: [],
    evidence_links: [],
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Wall time and on-CPU time (user + system) of a synchronous call, in ms. */
function time(fn) {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const result = fn();
  const used = process.cpuUsage(cpu);
  return { result, ms: Number(process.hrtime.bigint() - start) / 1e6, cpuMs: (used.user + used.system) / 1000 };
}

/** Wall time and the children's CPU time of a shell command, in ms (bash `times`). */
function timeShell(command, args) {
  const start = process.hrtime.bigint();
  const run = spawnSync('bash', ['-c', `${command}; times`, 'bench', ...args], { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.status !== 0) throw new Error(`${command} failed: ${run.stderr}`);
  const [user, system] = run.stdout
    .trim()
    .split('\n')
    .at(-1)
    .split(/\s+/)
    .map((t) => {
      const [, m, sec] = /^(\d+)m([\d.]+)s$/.exec(t);
      return (Number(m) * 60 + Number(sec)) * 1000;
    });
  return { ms, cpuMs: user + system };
}

/**
 * Visits every value of `node` the way a serializer must (every array item, every own key of every
 * object) and produces nothing: no serializer can take less time than this walk.
 */
function walk(node) {
  switch (typeof node) {
    case 'string':
      return node.length;
    case 'object': {
      if (node === null) return 1;
      let count = 0;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i += 1) count += walk(node[i]);
      } else {
        for (const key in node) count += walk(node[key]);
      }
      return count;
    }
    default:
      return 1;
  }
}

function hashBench() {
  const record = observation(0, small ? 5 * MB : 50 * MB);
  const bytes = Buffer.from(canonicalize(record), 'utf8');
  const runs = {
    rea: () => canonicalSha256(record),
    reference: () => createHash('sha256').update(canonicalize(record)).digest('hex'),
    plain: () => createHash('sha256').update(bytes).digest('hex'),
    walk: () => walk(record),
    bytes: () => writeCanonicalBytes(record, () => undefined),
    stringify: () =>
      createHash('sha256')
        .update(Buffer.from(JSON.stringify(record), 'utf8'))
        .digest('hex'),
  };
  const rounds = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
  for (let round = 0; round < 5; round += 1) {
    for (const [name, run] of Object.entries(runs)) rounds[name].push(time(run));
  }
  const digests = ['rea', 'reference', 'plain'].map((name) => rounds[name].at(-1).result);
  if (new Set(digests).size !== 1) throw new Error(`digests differ: ${digests.join(' ')}`);
  const pick = (name) => ({
    ms: median(rounds[name].map((r) => r.ms)),
    cpuMs: median(rounds[name].map((r) => r.cpuMs)),
  });
  const [rea, reference, plain, walked, stringify, serialized] = [
    'rea',
    'reference',
    'plain',
    'walk',
    'stringify',
    'bytes',
  ].map(pick);
  const mbps = (ms) => (bytes.length / MB / (ms / 1000)).toFixed(1);
  const line = (label, t) =>
    `    ${label.padEnd(44)}${t.ms.toFixed(0).padStart(7)} ms wall ${mbps(t.ms).padStart(7)} MB/s  ` +
    `${t.cpuMs.toFixed(0).padStart(7)} ms cpu ${mbps(t.cpuMs).padStart(7)} MB/s`;
  const vsPlain = (t) => `${(plain.ms / t.ms).toFixed(3)}x wall, ${(plain.cpuMs / t.cpuMs).toFixed(3)}x cpu`;
  console.log(`(1) canonicalize + SHA-256 of one ${(bytes.length / MB).toFixed(1)} MB record (median of 5)`);
  console.log(line('@rea/evidence canonicalSha256', rea));
  console.log(line('  of which serialization (bytes, no hash)', serialized));
  console.log(line('canonicalize + node:crypto', reference));
  console.log(line('plain SHA-256 of the same bytes', plain));
  console.log('    reference lines (what bounds any JS serializer on this input):');
  console.log(line('walk of the value, no output', walked));
  console.log(line('JSON.stringify (not canonical) + SHA-256', stringify));
  console.log(
    `    ratio vs canonicalize+crypto: ${(reference.ms / rea.ms).toFixed(2)}x wall, ` +
      `${(reference.cpuMs / rea.cpuMs).toFixed(2)}x cpu (target >= 1)`,
  );
  console.log(`    ratio vs plain SHA-256:       ${vsPlain(rea)} (target >= 0.5)`);
  console.log(`      JSON.stringify + SHA-256:   ${vsPlain(stringify)}`);
  console.log(
    `      bound, walk + SHA-256:      ${(plain.ms / (plain.ms + walked.ms)).toFixed(3)}x wall, ` +
      `${(plain.cpuMs / (plain.cpuMs + walked.cpuMs)).toFixed(3)}x cpu (a serializer that wrote for free)`,
  );
}

/** Child mode: exports `total` bytes of records built lazily, then prints timings and peak RSS. */
async function exportChild(destination, total) {
  const perRecord = 1 * MiB;
  // A handful of distinct sealed records, cycled, stand for the ledger: the export streams from an
  // iterable, so the measurement is the exporter's memory, not the source's.
  const distinct = Array.from({ length: 8 }, (_, i) => sealEvidence(observation(i + 1, perRecord)));
  const count = Math.round(total / perRecord);
  function* ledger() {
    for (let i = 0; i < count; i += 1) yield distinct[i % distinct.length];
  }
  const rssBefore = process.memoryUsage().rss;
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const result = await exportBundle(ledger(), destination);
  const used = process.cpuUsage(cpu);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuMs = (used.user + used.system) / 1000;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ ms, cpuMs, rssBefore, maxRss, bytes: result.byte_size, count }));
}

function exportBench() {
  const dir = mkdtempSync(join(tmpdir(), 'rea-bench-evidence-'));
  try {
    const destination = join(dir, 'bundle.json');
    const total = small ? 64 * MiB : 1024 * MiB;
    const child = spawnSync(
      process.execPath,
      [fileURLToPath(import.meta.url), '--export-child', destination, String(total)],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    if (child.status !== 0) throw new Error(`export child failed with status ${child.status}`);
    const run = JSON.parse(child.stdout);
    if (statSync(destination).size !== run.bytes) throw new Error('bundle size differs from the reported size');
    const copy = join(dir, 'copy.json');
    const copies = { cp: [], cpSync: [] };
    for (let round = 0; round < 3; round += 1) {
      copies.cp.push(timeShell('cp "$1" "$2"', [destination, copy]));
      rmSync(copy);
      copies.cpSync.push(timeShell('cp "$1" "$2" && sync "$2"', [destination, copy]));
      rmSync(copy);
    }
    const pick = (runs) => ({ ms: median(runs.map((r) => r.ms)), cpuMs: median(runs.map((r) => r.cpuMs)) });
    const [cp, cpSync] = [pick(copies.cp), pick(copies.cpSync)];
    const mbps = (ms) => (run.bytes / MB / (ms / 1000)).toFixed(1);
    const line = (label, t) =>
      `    ${label.padEnd(40)}${t.ms.toFixed(0).padStart(7)} ms wall ${mbps(t.ms).padStart(7)} MB/s  ` +
      `${t.cpuMs.toFixed(0).padStart(7)} ms cpu`;
    console.log(`(2) export of ${run.count} records, ${(run.bytes / MiB).toFixed(0)} MiB bundle (child process)`);
    console.log(line('exportBundle (fsync + rename)', run));
    console.log(line('cp of the bundle (median of 3)', cp));
    console.log(line('cp + sync of the bundle (median of 3)', cpSync));
    console.log(
      `    ratio vs cp: ${(cp.ms / run.ms).toFixed(3)}x wall; vs cp+sync: ${(cpSync.ms / run.ms).toFixed(3)}x wall`,
    );
    console.log(
      `    peak RSS ${(run.maxRss / MiB).toFixed(0)} MiB (target < 256 MB); RSS before export ${(run.rssBefore / MiB).toFixed(0)} MiB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const childAt = process.argv.indexOf('--export-child');
if (childAt !== -1) {
  await exportChild(process.argv[childAt + 1], Number(process.argv[childAt + 2]));
} else {
  hashBench();
  exportBench();
}

// @rea/evidence benchmarks, each against a reference on the same input in the same run:
// (1) canonicalize-and-hash a ~50 MB record: REA's streaming canonicalSha256 vs the `canonicalize`
//     package + node:crypto, and vs plain SHA-256 of the same canonical bytes (the limit);
// (2) export of ~1 GiB of Evidence as a bundle, in a child process whose peak RSS is measured, vs `cp`
//     of the resulting file.
// Targets: (1) >= 1x canonicalize+crypto and >= 0.5x plain SHA-256; (2) peak RSS < 256 MB.
// Usage: node bench/evidence/run.mjs [--small]   (--small: 5 MB record and 64 MiB export, for a smoke run)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import canonicalize from 'canonicalize';
import { canonicalSha256, exportBundle, sealEvidence } from '@rea/evidence';

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

function time(fn) {
  const start = process.hrtime.bigint();
  const result = fn();
  return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

function hashBench() {
  const record = observation(0, small ? 5 * MB : 50 * MB);
  const bytes = Buffer.from(canonicalize(record), 'utf8');
  const rounds = { rea: [], reference: [], plain: [] };
  let digests;
  for (let round = 0; round < 5; round += 1) {
    const rea = time(() => canonicalSha256(record));
    const reference = time(() => createHash('sha256').update(canonicalize(record)).digest('hex'));
    const plain = time(() => createHash('sha256').update(bytes).digest('hex'));
    rounds.rea.push(rea.ms);
    rounds.reference.push(reference.ms);
    rounds.plain.push(plain.ms);
    digests = [rea.result, reference.result, plain.result];
  }
  if (new Set(digests).size !== 1) throw new Error(`digests differ: ${digests.join(' ')}`);
  const mbps = (ms) => (bytes.length / MB / (ms / 1000)).toFixed(1);
  const [rea, reference, plain] = [median(rounds.rea), median(rounds.reference), median(rounds.plain)];
  console.log(`(1) canonicalize + SHA-256 of one ${(bytes.length / MB).toFixed(1)} MB record (median of 5)`);
  console.log(`    @rea/evidence canonicalSha256     ${rea.toFixed(0).padStart(6)} ms  ${mbps(rea)} MB/s`);
  console.log(`    canonicalize + node:crypto        ${reference.toFixed(0).padStart(6)} ms  ${mbps(reference)} MB/s`);
  console.log(`    plain SHA-256 of the same bytes   ${plain.toFixed(0).padStart(6)} ms  ${mbps(plain)} MB/s`);
  console.log(`    ratio vs canonicalize+crypto: ${(reference / rea).toFixed(2)}x (target >= 1)`);
  console.log(`    ratio vs plain SHA-256:       ${(plain / rea).toFixed(3)}x (target >= 0.5)`);
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
  const result = await exportBundle(ledger(), destination);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  process.stdout.write(
    JSON.stringify({ ms, rssBefore, maxRss: process.resourceUsage().maxRSS * 1024, bytes: result.byte_size, count }),
  );
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
    const cp = time(() => spawnSync('cp', [destination, copy], { stdio: 'inherit' }));
    rmSync(copy);
    const cpSync = time(() =>
      spawnSync('sh', ['-c', 'cp "$0" "$1" && sync "$1"', destination, copy], { stdio: 'inherit' }),
    );
    const mbps = (ms) => (run.bytes / MB / (ms / 1000)).toFixed(1);
    console.log(`(2) export of ${run.count} records, ${(run.bytes / MiB).toFixed(0)} MiB bundle (child process)`);
    console.log(`    exportBundle (fsync + rename)     ${run.ms.toFixed(0).padStart(6)} ms  ${mbps(run.ms)} MB/s`);
    console.log(`    cp of the bundle                  ${cp.ms.toFixed(0).padStart(6)} ms  ${mbps(cp.ms)} MB/s`);
    console.log(
      `    cp + sync of the bundle           ${cpSync.ms.toFixed(0).padStart(6)} ms  ${mbps(cpSync.ms)} MB/s`,
    );
    console.log(`    ratio vs cp: ${(cp.ms / run.ms).toFixed(3)}x, vs cp+sync: ${(cpSync.ms / run.ms).toFixed(3)}x`);
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

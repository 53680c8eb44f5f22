// Cancel at every phase: each heavy call of a tool family is run twice to completion (the shorter, warm
// run's duration is D),
// then again with its signal aborted at 0, 10, 30, 50, 70, 85 and 95 % of D, as a client's
// notifications/cancelled aborts it in the server. For each cancel the table shows the outcome (the
// error code and the phase it names, or "completed" when the call ended before it saw the cancel), what
// was kept (records retained in the call's ledger, and entries left in the temporary directory: staging
// and extraction folders, partial files), and how long the call took to answer after the cancel.
// Calls run through executeTool as the server runs them (validation, work and sealing); the Capstone
// open and queries and the Evidence bundle import take the signal directly, as their tools pass it.
// Inputs are generated: a 10,000-file tree packed as ZIP and ASAR, an x86-64 shared object with 100,000
// function symbols, and a bundle of 5,000 small records.
// The same cancels through notifications/cancelled on a live `rea mcp`: cancel-mcp.mjs.
// Usage: node bench/responsiveness/cancel.mjs
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as asar from '@electron/asar';
import { artifactTools, inspectBinaryLayoutTool } from '@rea/artifact';
import { exportBundle, importBundle } from '@rea/evidence';
import { buildInputs, smallRecords } from './inputs.mjs';

const RECORDS = 5_000;
const FRACTIONS = [0, 0.1, 0.3, 0.5, 0.7, 0.85, 0.95];

const requireFromArtifact = createRequire(createRequire(import.meta.url).resolve('@rea/artifact/package.json'));
const kitDir = dirname(requireFromArtifact.resolve('@rea/provider-kit/package.json'));
const { executeTool, createCallSupervisor } = await import(pathToFileURL(join(kitDir, 'dist', 'index.js')).href);

const inputs = mkdtempSync(join(tmpdir(), 'rea-bench-cancel-'));
// Everything the calls create in the temporary directory lands in a private one, listed after each call.
const scratch = mkdtempSync(join(tmpdir(), 'rea-bench-cancel-tmp-'));
process.env.TMPDIR = scratch;

/** A tool context whose ledger counts what is retained. */
function context(signal) {
  const noop = () => undefined;
  const retained = [];
  return {
    retained,
    context: {
      session: { target: null, binding: null, run_id: null },
      platform: process.platform,
      signal,
      progress: { report: noop },
      logger: { debug: noop, info: noop, warn: noop, error: noop },
      ledger: {
        resolve: () => null,
        get: (id) => retained.find((r) => r.evidence_id === id),
        retain: (record) => (retained.push(record), record),
      },
      clientFeatures: new Set(),
      supervisor: createCallSupervisor(),
    },
  };
}

/**
 * Runs `call(signal, retained)` with its signal aborted `delay` ms after it starts (never when delay is
 * null); returns the outcome, the phase, what was kept and the time from the cancel to the answer.
 */
async function run(call, delay) {
  const controller = new AbortController();
  const { context: ctx, retained } = context(controller.signal);
  let cancelledAt = null;
  const started = performance.now();
  const timer =
    delay === null
      ? null
      : setTimeout(() => {
          cancelledAt = performance.now();
          controller.abort();
        }, delay);
  if (delay === 0) {
    clearTimeout(timer);
    cancelledAt = performance.now();
    controller.abort();
  }
  let outcome = 'completed';
  let phase = '';
  let result = null;
  try {
    result = await call(ctx, controller.signal, retained);
  } catch (error) {
    outcome = error?.code ?? String(error);
    phase = error?.details?.phase ?? '';
  }
  const ended = performance.now();
  clearTimeout(timer);
  const left = readdirSync(scratch);
  return {
    outcome,
    phase,
    result,
    total: ended - started,
    answer: cancelledAt === null ? null : Math.max(0, ended - cancelledAt),
    seenCancel: cancelledAt !== null,
    retained: retained.length,
    left,
  };
}

const rows = [];
async function family(tool, call, cleanup = () => undefined) {
  let full = null;
  for (let i = 0; i < 2; i += 1) {
    const attempt = await run(call, null);
    cleanup(attempt.result);
    for (const entry of attempt.left) rmSync(join(scratch, entry), { recursive: true, force: true });
    if (full === null || attempt.outcome !== 'completed' || attempt.total < full.total) full = attempt;
  }
  if (full.outcome !== 'completed') {
    console.log(`${tool}: did not complete (${full.outcome}); not measured`);
    return;
  }
  console.log(`${tool}: ${full.total.toFixed(0)} ms uncancelled; load ${loadavg()[0].toFixed(1)}`);
  for (const fraction of FRACTIONS) {
    const row = await run(call, Math.round(full.total * fraction));
    cleanup(row.result);
    // A call that completed before its cancel fired is no cancel: listed as such.
    const outcome = row.outcome === 'completed' && row.answer === null ? 'completed before the cancel' : row.outcome;
    rows.push({ tool, at: `${Math.round(fraction * 100)} %`, ...row, outcome });
    const kept = row.outcome === 'completed' ? [] : row.left;
    console.log(
      `  cancel at ${String(Math.round(fraction * 100)).padStart(2)} % → ${outcome}${row.phase ? ` (${row.phase})` : ''}; ` +
        `retained ${row.retained}; left ${kept.length ? kept.join(', ') : 'nothing'}; ` +
        `answered ${row.answer === null ? '-' : `${row.answer.toFixed(0)} ms`} after the cancel`,
    );
    for (const entry of row.left) rmSync(join(scratch, entry), { recursive: true, force: true });
  }
}

try {
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; generating inputs…`,
  );
  const { tree, zip, so } = buildInputs(inputs);
  const app = join(inputs, 'app.asar');
  await asar.createPackage(tree, app);
  const tool = (name) => artifactTools.find((t) => t.name === name);
  const exec = (name, input) => async (ctx) => (await executeTool(tool(name), input, ctx)).record;
  const inventories = [];
  for (const [label, path] of [
    ['ZIP', zip],
    ['ASAR', app],
  ]) {
    inventories.push((await executeTool(tool('inspect_artifact'), { path }, context(undefined).context)).record);
    await family(`inspect_artifact ${label}`, exec('inspect_artifact', { path }));
  }
  await family('extract_artifact ZIP', exec('extract_artifact', { path: zip }), (record) => {
    const output = record?.local?.output_directory;
    if (output) rmSync(output, { recursive: true, force: true });
  });
  await family(
    'compare_artifacts ZIP vs ASAR',
    exec('compare_artifacts', { left: inventories[0], right: inventories[1] }),
  );
  for (const detail of ['complete', 'summary']) {
    await family(`inspect_binary_layout ${detail}`, async (ctx) => {
      return (await executeTool(inspectBinaryLayoutTool, { path: so, detail }, ctx)).record;
    });
  }
  const { createCapstoneProvider } = await import('@rea/provider-capstone');
  const provider = createCapstoneProvider();
  const target = { path: so, format: 'native', sha256: '0'.repeat(64), size: statSync(so).size };
  await family(
    'Capstone open (open_binary)',
    (_ctx, signal) => provider.open(target, { signal }),
    (session) => void session?.close(new AbortController().signal),
  );
  const session = await provider.open(target, { signal: new AbortController().signal });
  const port = session.session;
  await family('Capstone list_procedures (all)', (_ctx, signal) =>
    port.procedures({ offset: 0, limit: Number.MAX_SAFE_INTEGER }, signal),
  );
  await family('Capstone search_procedures', (_ctx, signal) =>
    port.procedures({ offset: 0, limit: 100, query: 'f9' }, signal),
  );
  await session.close(new AbortController().signal);
  const small = smallRecords(RECORDS);
  const bundle = join(inputs, 'bundle.json');
  await exportBundle(small, bundle);
  await family(`import_evidence_bundle (${RECORDS} records)`, (_ctx, signal) => importBundle(bundle, { signal }));
  await family(
    `export_evidence_bundle (${RECORDS} records)`,
    (_ctx, signal) => exportBundle(small, join(scratch, 'exported.json'), { signal }),
    () => rmSync(join(scratch, 'exported.json'), { force: true }),
  );

  console.log('\n| tool | cancel at | outcome (phase) | retained | left behind | answered after the cancel |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    const kept = row.outcome === 'completed before the cancel' ? [] : row.left;
    console.log(
      `| ${row.tool} | ${row.at} | ${row.outcome}${row.phase ? ` (${row.phase})` : ''} | ${row.retained} | ` +
        `${kept.length ? kept.join(', ') : 'nothing'} | ${row.answer === null ? '-' : `${row.answer.toFixed(0)} ms`} |`,
    );
  }
  const cancelled = rows.filter((r) => r.outcome === 'cancelled');
  const slowest = cancelled.reduce((a, b) => (b.answer > (a?.answer ?? -1) ? b : a), null);
  console.log(
    `\n${cancelled.length} of ${rows.length} cancels ended as cancelled; ` +
      `${rows.filter((r) => r.outcome === 'cancelled' && (r.retained > 0 || r.left.length > 0)).length} kept something; ` +
      `slowest answer ${slowest ? `${slowest.answer.toFixed(0)} ms (${slowest.tool}, ${slowest.at})` : '-'}; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
} finally {
  rmSync(inputs, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
}

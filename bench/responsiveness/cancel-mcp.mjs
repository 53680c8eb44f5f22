// Cancel at every phase, through the protocol: the built `rea mcp` (stdio) runs each heavy call twice to
// completion (the shorter run's duration is D), then again with `notifications/cancelled` sent for it at
// 0, 10, 30, 50, 70, 85 and 95 % of D. For each cancel the table shows the outcome the server logged (its
// "call cancelled by the client" line: the error code and the phase it names), what was kept (records
// added to the connection's ledger, as binary_session counts them, and entries left in the server's
// temporary directory or beside an export's destination), how long the server took to stop after the
// cancel arrived (from its log line), and how long after the cancel was sent the client read that line.
// A call the server had answered before the cancel reached it is listed as such.
// Every call gets a target of its own (a hard link under a new name, a bundle of its own records), so a
// cancelled call that kept its record would show in the count.
// Inputs are generated: a 10,000-file ZIP, an x86-64 shared object with 100,000 function symbols, and
// bundles of 5,000 small records. The in-process table, through the signal alone: cancel.mjs.
// Usage: node bench/responsiveness/cancel-mcp.mjs
import { spawn } from 'node:child_process';
import { linkSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { exportBundle } from '@rea/evidence';
import { buildInputs, smallRecords } from './inputs.mjs';

const RECORDS = 5_000;
const FRACTIONS = [0, 0.1, 0.3, 0.5, 0.7, 0.85, 0.95];
const bin = join(dirname(createRequire(import.meta.url).resolve('rea-mcp/package.json')), 'dist', 'bin.cjs');

const inputs = mkdtempSync(join(tmpdir(), 'rea-bench-cancel-mcp-'));
// The server's temporary directory: listed after each call.
const scratch = mkdtempSync(join(tmpdir(), 'rea-bench-cancel-mcp-tmp-'));
const child = spawn(process.execPath, [bin, 'mcp'], {
  stdio: ['pipe', 'pipe', 'pipe'],
  env: { ...process.env, TMPDIR: scratch },
});

/** Calls `each(line)` for every complete line of `stream`. */
function lines(stream, each) {
  let pending = '';
  stream.on('data', (chunk) => {
    const parts = (pending + chunk.toString('utf8')).split('\n');
    pending = parts.pop();
    for (const part of parts) if (part.startsWith('{')) each(JSON.parse(part));
  });
}
const waiting = new Map();
lines(child.stdout, (message) => {
  waiting.get(message.id)?.(message);
  waiting.delete(message.id);
});
/** The server's log entries, each with the time it was read. */
const logged = [];
lines(child.stderr, (entry) => logged.push({ ...entry, readAt: performance.now() }));

let nextId = 1;
const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
function request(method, params) {
  const id = nextId++;
  const answer = new Promise((resolve) => waiting.set(id, resolve));
  send({ id, method, params });
  return { id, answer };
}
async function call(name, args = {}) {
  const { answer } = request('tools/call', { name, arguments: args });
  return (await answer).result;
}
const records = async () => (await call('binary_session')).structuredContent.ledger.records;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let serial = 0;
/** A hard link to `path` under a new name: the same bytes, a record of its own. */
function fresh(path) {
  serial += 1;
  const linked = join(inputs, `target-${serial}-${path.split('/').pop()}`);
  linkSync(path, linked);
  return linked;
}

/**
 * Runs `name` on `args()` with notifications/cancelled sent `delay` ms after the request (never when
 * delay is null). Returns the outcome, the phase, what was kept and the times.
 */
async function run(name, args, delay, deadline, after) {
  for (const entry of readdirSync(scratch)) rmSync(join(scratch, entry), { recursive: true, force: true });
  const input = args();
  const before = await records();
  const seen = logged.length;
  const started = performance.now();
  const { id, answer } = request('tools/call', { name, arguments: input, _meta: { progressToken: `p${serial}` } });
  let answered = null;
  void answer.then((message) => (answered = message));
  if (delay === null) {
    const message = await answer;
    const total = performance.now() - started;
    await after?.(input, message.result);
    // Too large for one response, the result is answered by reference to the record retained: complete.
    const text = message.result?.content?.[0]?.text ?? '';
    const byReference = /"code":\s*"resource_constraint"/.test(text) && text.includes('evidence_id');
    return { outcome: message.result?.isError && !byReference ? 'failed' : 'completed', total };
  }
  if (delay > 0) await sleep(delay);
  if (answered !== null) {
    await after?.(input, answered.result);
    return { outcome: 'completed before the cancel', retained: 0, left: [] };
  }
  const sentAt = performance.now();
  send({ method: 'notifications/cancelled', params: { requestId: id, reason: 'bench' } });
  const line = () => logged.slice(seen).find((e) => e.message === 'call cancelled by the client');
  while (!line() && answered === null && performance.now() - sentAt < deadline) await sleep(2);
  const entry = line();
  const left = [...readdirSync(scratch), ...(after?.left?.(input) ?? [])];
  const retained = (await records()) - before;
  await after?.(input, answered?.result);
  if (!entry) return { outcome: answered ? 'answered before the cancel arrived' : 'no answer', retained, left };
  // Cancelled once its work was done and its record kept: the record is the call's, as if uncancelled.
  if (entry.data.completed) return { outcome: 'completed before the cancel took effect', retained: 0, left };
  return {
    outcome: entry.data.code,
    phase: entry.data.phase ?? '',
    retained,
    left,
    stopped: entry.data.stopped_after_ms,
    read: entry.readAt - sentAt,
  };
}

const rows = [];
async function family(tool, name, args, after) {
  let full = Infinity;
  for (let i = 0; i < 2; i += 1) {
    const attempt = await run(name, args, null, 0, after);
    if (attempt.outcome !== 'completed') {
      console.log(`${tool}: did not complete (${attempt.outcome}); not measured`);
      return;
    }
    full = Math.min(full, attempt.total);
  }
  console.log(`${tool}: ${full.toFixed(0)} ms uncancelled; load ${loadavg()[0].toFixed(1)}`);
  for (const fraction of FRACTIONS) {
    const row = await run(name, args, Math.round(full * fraction), Math.max(5_000, 3 * full), after);
    const at = `${Math.round(fraction * 100)} %`;
    rows.push({ tool, at, ...row });
    console.log(`  cancel at ${at.padStart(4)} → ${describe(row).join('; ')}`);
  }
}
function describe(row) {
  return [
    `${row.outcome}${row.phase ? ` (${row.phase})` : ''}`,
    `retained ${row.retained}`,
    `left ${row.left.length ? row.left.join(', ') : 'nothing'}`,
    row.stopped === undefined ? 'stopped -' : `stopped ${row.stopped} ms after the cancel arrived`,
    row.read === undefined ? '' : `logged ${row.read.toFixed(0)} ms after it was sent`,
  ].filter(Boolean);
}

/** A bundle of RECORDS small records of its own. */
async function bundle() {
  serial += 1;
  const path = join(inputs, `bundle-${serial}.json`);
  const sealed = smallRecords(RECORDS, serial);
  await exportBundle(sealed, path);
  return path;
}

try {
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; generating inputs…`,
  );
  const { zip, so } = buildInputs(inputs);
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'rea-bench-cancel-mcp', version: '0' },
  }).answer;
  send({ method: 'notifications/initialized' });
  await records();
  await family('inspect_artifact ZIP', 'inspect_artifact', () => ({ path: fresh(zip) }));
  await family('extract_artifact ZIP', 'extract_artifact', () => ({ path: fresh(zip) }));
  for (const detail of ['complete', 'summary'])
    await family(`inspect_binary_layout ${detail}`, 'inspect_binary_layout', () => ({ path: fresh(so), detail }));
  const close = async () => void (await call('close_binary'));
  await family('open_binary (Capstone)', 'open_binary', () => ({ path: fresh(so), provider_id: 'capstone' }), close);
  const bundles = [];
  for (let i = 0; i < 2 + FRACTIONS.length; i += 1) bundles.push(await bundle());
  await family(`import_evidence_bundle (${RECORDS} records)`, 'import_evidence_bundle', () => ({
    path: bundles.shift(),
  }));
  const exported = Object.assign(async (input) => rmSync(input.path, { force: true }), {
    left: (input) => readdirSync(dirname(input.path)).filter((n) => n.startsWith(`.${input.path.split('/').pop()}`)),
  });
  await family(
    'export_evidence_bundle (the ledger so far)',
    'export_evidence_bundle',
    () => ({ path: join(inputs, `export-${++serial}.json`) }),
    exported,
  );

  console.log(
    '\n| tool | cancel at | outcome (phase) | retained | left behind | server stopped after | client read it after |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| ${row.tool} | ${row.at} | ${row.outcome}${row.phase ? ` (${row.phase})` : ''} | ${row.retained} | ` +
        `${row.left.length ? row.left.join(', ') : 'nothing'} | ${row.stopped === undefined ? '-' : `${row.stopped} ms`} | ` +
        `${row.read === undefined ? '-' : `${row.read.toFixed(0)} ms`} |`,
    );
  }
  const cancelled = rows.filter((r) => r.outcome === 'cancelled');
  const slowest = cancelled.reduce((a, b) => (b.stopped > (a?.stopped ?? -1) ? b : a), null);
  console.log(
    `\n${cancelled.length} of ${rows.length} cancels ended as cancelled; ` +
      `${rows.filter((r) => r.retained > 0 || r.left.length > 0).length} kept something; ` +
      `slowest stop ${slowest ? `${slowest.stopped} ms (${slowest.tool}, ${slowest.at})` : '-'}; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
} finally {
  child.kill();
  if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
  rmSync(inputs, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
}

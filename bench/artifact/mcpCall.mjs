// One timed inspect_artifact call over a warm MCP connection: starts the built `rea mcp` (stdio) in a
// fresh process, initializes it, lists the tools and warms it with a call on a tiny archive, then times
// the call on <zip> from the request's first byte to the response's last (raw JSON-RPC lines, no client
// library, so that no client-side parsing or schema checking is counted). Prints one JSON line: the
// call's wall time, the server's CPU time for it (every thread: user + system from /proc), the server's
// RSS before the call and its peak RSS (VmHWM) after it, and the response's size. With
// REA_BENCH_VERIFY=1 it also checks, after timing, every SHA-256 the response reports against the
// machine's own file (the archive holds files of / by their paths). With --floor it drives
// bench/artifact/floorServer.mjs instead (the same SDK and zod, one `echo` tool) through the same requests,
// its `echo` in place of inspect_artifact: the memory floor of a server of this stack.
//   node bench/artifact/mcpCall.mjs <zip> [--floor]
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const zip = process.argv[2];
const floor = process.argv.includes('--floor');
const bin = join(dirname(createRequire(import.meta.url).resolve('rea-mcp/package.json')), 'dist', 'bin.cjs');
const server = floor
  ? spawn(process.execPath, [fileURLToPath(new URL('floorServer.mjs', import.meta.url))], {
      stdio: ['pipe', 'pipe', 'ignore'],
    })
  : spawn(process.execPath, [bin, 'mcp'], { stdio: ['pipe', 'pipe', 'ignore'] });
const tool = floor ? 'echo' : 'inspect_artifact';

/** Complete lines from the server, handed to whoever waits for the next one. */
let waiting = null;
const parts = [];
server.stdout.setEncoding('utf8').on('data', (text) => {
  let from = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', from)) {
    parts.push(text.slice(from, at));
    from = at + 1;
    const line = parts.join('');
    parts.length = 0;
    const answer = waiting;
    waiting = null;
    answer?.(line);
  }
  if (from < text.length) parts.push(text.slice(from));
});
let id = 0;
const request = (method, params) =>
  new Promise((resolve) => {
    waiting = resolve;
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
  });
const status = () => readFileSync(`/proc/${server.pid}/status`, 'utf8');
const vm = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status())[1]) * 1024;
/** The server's CPU time so far in ms: utime + stime of every thread (fields 14 and 15, in 1/100 s). */
const cpu = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const warm = mkdtempSync(join(tmpdir(), 'rea-bench-mcp-warm-'));
try {
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench', version: '1' },
  });
  server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await request('tools/list', {});
  writeFileSync(join(warm, 'a.txt'), 'warm');
  execFileSync('zip', ['-q', join(warm, 'w.zip'), 'a.txt'], { cwd: warm });
  await request('tools/call', { name: tool, arguments: { path: join(warm, 'w.zip') } });

  const rssBefore = vm('VmRSS');
  const cpuBefore = cpu();
  const start = performance.now();
  const line = await request('tools/call', { name: tool, arguments: { path: zip } });
  const wall = performance.now() - start;
  const used = cpu() - cpuBefore;
  const peakRss = vm('VmHWM');
  const { result, error } = JSON.parse(line);
  if (error !== undefined || result.isError) throw new Error(`${tool} failed: ${line.slice(0, 400)}`);
  if (floor && result.content[0].text !== zip) throw new Error(`echo answered ${line.slice(0, 400)}`);
  const record = result.structuredContent;
  if (!floor && record.coverage.status !== 'complete')
    throw new Error(`incomplete inventory: ${record.coverage.reasons.join('; ')}`);
  let verified = null;
  if (!floor && process.env.REA_BENCH_VERIFY === '1') {
    const own = record.normalized_result.entries.filter((e) => e.kind === 'file' && !e.path.includes('!/'));
    for (const entry of own) {
      const sha = createHash('sha256')
        .update(readFileSync(`/${entry.path}`))
        .digest('hex');
      if (entry.sha256 !== sha) throw new Error(`SHA-256 of ${entry.path} differs from /${entry.path}`);
    }
    verified = own.length;
  }
  console.log(
    JSON.stringify({ wall, cpu: used, rssBefore, peakRss, responseBytes: Buffer.byteLength(line), verified }),
  );
} finally {
  server.kill();
  rmSync(warm, { recursive: true, force: true });
}

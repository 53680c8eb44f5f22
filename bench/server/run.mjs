// MCP server start-up: spawn → initialize → tools/list complete, median of 20, for `rea mcp` (the
// built `rea-mcp` package over stdio) against @playwright/mcp measured the same way in the same run
// (interleaved, raw JSON-RPC lines, no client library on either side). Also prints the tools/list
// response size, REA's peak RSS (VmHWM) over the run, and for REA the latency of the first tools/call
// after the list (`binary_session`, which loads the providers and tool contracts on first need) with the
// CPU time it used, and the
// CPU time (user + system) each server used up to its complete tools/list, steadier than wall time on a
// shared machine.
//
// With --baseline <dist/bin.cjs of another build> (e.g. a copy of main's packages/rea kept beside this
// one), that build runs interleaved with this one as a third server, and the start-up and first-call
// figures are also given as ratios of this build to it; --no-playwright leaves @playwright/mcp out.
//
//   node tools/build.mjs && node bench/server/run.mjs [runs] [--baseline PATH] [--no-playwright]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const runs = Number(argv.find((a, i) => /^\d+$/.test(a) && !/^--/.test(argv[i - 1] ?? '')) ?? 20);
const baselineBin = option('--baseline');
const withPlaywright = !argv.includes('--no-playwright');
const reaBin = join(dirname(require.resolve('rea-mcp/package.json')), 'dist', 'bin.cjs');
const playwrightBin = join(dirname(require.resolve('@playwright/mcp/package.json')), 'cli.js');

const servers = [
  { name: 'rea mcp', command: process.execPath, args: [reaBin, 'mcp'], firstCall: 'binary_session' },
  ...(baselineBin
    ? [
        {
          name: 'rea mcp (baseline)',
          command: process.execPath,
          args: [baselineBin, 'mcp'],
          firstCall: 'binary_session',
        },
      ]
    : []),
  ...(withPlaywright
    ? [{ name: '@playwright/mcp', command: process.execPath, args: [playwrightBin, '--headless', '--isolated'] }]
    : []),
];

/** CPU time (user + system) the process has used so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

function peakRss(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** One cold start: returns the time to a complete tools/list, its byte size and the peak RSS. */
function measure(server) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(server.command, server.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    let buffer = '';
    let done = false;
    let listed = null;
    let callStarted = 0;
    const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const finish = (result) => {
      done = true;
      const rss = peakRss(child.pid);
      child.kill('SIGTERM');
      child.once('exit', () => resolve({ ...result, rss }));
    };
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!done) reject(new Error(`${server.name} exited (${code}) before answering: ${stderr}`));
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        const message = JSON.parse(line);
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          listed = {
            ms: performance.now() - started,
            bytes: Buffer.byteLength(line),
            tools: message.result.tools.length,
            listRss: peakRss(child.pid),
            cpuMs: cpuMs(child.pid),
          };
          if (!server.firstCall) return finish(listed);
          callStarted = performance.now();
          send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: server.firstCall, arguments: {} } });
        } else if (message.id === 3) {
          if (message.error || message.result?.isError) {
            return reject(new Error(`${server.name}: ${server.firstCall} failed: ${line.slice(0, 500)}`));
          }
          const cpuAfterCall = cpuMs(child.pid);
          finish({
            ...listed,
            firstCallMs: performance.now() - callStarted,
            firstCallCpuMs: cpuAfterCall === null || listed.cpuMs === null ? null : cpuAfterCall - listed.cpuMs,
          });
        }
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rea-bench', version: '1' } },
    });
  });
}

/** One measured start; a start that fails (e.g. packages being rebuilt meanwhile) is retried a few times. */
async function sample(server) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await measure(server);
    } catch (error) {
      if (attempt >= 10) throw error;
      console.error(`retrying ${server.name}: ${error.message.split('\n')[0]}`);
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const samples = new Map(servers.map((s) => [s.name, []]));
await Promise.all(servers.map((server) => sample(server))); // warm the file-system cache for both
for (let i = 0; i < runs; i += 1) {
  for (const server of servers) samples.get(server.name).push(await sample(server));
}

const mib = (bytes) => (bytes === null ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
const summary = servers.map((server) => {
  const list = samples.get(server.name);
  return {
    server: server.name,
    median_ms: Math.round(median(list.map((s) => s.ms))),
    cpu_ms: median(list.map((s) => s.cpuMs ?? 0)),
    first_call_ms: server.firstCall ? Math.round(median(list.map((s) => s.firstCallMs))) : null,
    first_call_cpu_ms: server.firstCall ? median(list.map((s) => s.firstCallCpuMs ?? 0)) : null,
    tools: list[0].tools,
    tools_list_bytes: list[0].bytes,
    peak_rss: Math.max(...list.map((s) => s.rss ?? 0)),
    list_rss: Math.max(...list.map((s) => s.listRss ?? 0)),
  };
});
const rea = summary.find((row) => row.server === 'rea mcp');
const playwright = summary.find((row) => row.server === '@playwright/mcp');
const baseline = summary.find((row) => row.server === 'rea mcp (baseline)');
console.log(`spawn → initialize → tools/list, median of ${runs} cold starts each (interleaved)`);
for (const row of summary) {
  console.log(
    `  ${row.server.padEnd(18)} ${String(row.median_ms).padStart(6)} ms (CPU ${row.cpu_ms} ms)  ${String(row.tools).padStart(3)} tools  ` +
      `tools/list ${row.tools_list_bytes} bytes (${Math.round(row.tools_list_bytes / row.tools)} per tool)  peak RSS ${mib(row.peak_rss)}`,
  );
}
if (playwright)
  console.log(
    `  ratio rea / playwright: ${(rea.median_ms / playwright.median_ms).toFixed(2)}× wall (target ≤ 0.6×, and < 500 ms), ` +
      `${(rea.cpu_ms / playwright.cpu_ms).toFixed(2)}× CPU time to the list`,
  );
if (baseline) {
  const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
  console.log(
    `  ratio rea / baseline: start-up ${ratio(rea.median_ms, baseline.median_ms)}× wall, ${ratio(rea.cpu_ms, baseline.cpu_ms)}× CPU; ` +
      `first call ${ratio(rea.first_call_ms, baseline.first_call_ms)}× wall (${rea.first_call_ms} vs ${baseline.first_call_ms} ms), ` +
      `${ratio(rea.first_call_cpu_ms, baseline.first_call_cpu_ms)}× CPU (${rea.first_call_cpu_ms} vs ${baseline.first_call_cpu_ms} ms); ` +
      `peak RSS ${mib(rea.peak_rss)} vs ${mib(baseline.peak_rss)}`,
  );
}
console.log(
  `  load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
console.log(
  `  rea peak RSS ${mib(rea.list_rss)} at tools/list, ${mib(rea.peak_rss)} after the first call (target < 120 MiB)`,
);
console.log(
  `  rea first tools/call after the list (binary_session, loads the composition): ${rea.first_call_ms} ms wall, ` +
    `CPU ${rea.first_call_cpu_ms} ms; ${(rea.first_call_ms / rea.median_ms).toFixed(2)}× its own start-up ` +
    `(target ≤ 150 ms, start-up unchanged: ${rea.first_call_ms <= 150 ? 'met' : 'NOT met'})`,
);

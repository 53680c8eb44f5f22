// @rea/provider-browser benchmark, on one local page in one tab of one headless Chromium, all rows
// interleaved run by run so they see the same load:
// - the floor: a minimal chrome-remote-interface script that collects the same facts (frame tree and
//   resources, every script's source hashed with SHA-256, console, title and element count, cookie
//   names), one command after another;
// - inspect_web_page run in this process (executeTool), against the floor (target: within 1.5x);
// - inspect_web_page over `rea mcp` (stdio, started once), against chrome-devtools-mcp (stdio, started
//   once, attached to the same browser with --browserUrl) answering take_snapshot plus
//   list_network_requests for the same tab (target: faster).
// Reports medians, their ratios, the load average before and after, and peak RSS (this process, and
// VmHWM of each MCP server).
// Usage: node bench/browser/run.mjs [--runs N]
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import CDP from 'chrome-remote-interface';
import { chromeFlags, findChrome, inspectWebPageTool } from '@rea/provider-browser';
import { createCallSupervisor, createProcessSupervisor, executeTool } from '@rea/provider-kit';
import { peakRss, stdioServer } from './stdio.mjs';

const require = createRequire(import.meta.url);
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 7;
const scripts = Array.from({ length: 20 }, (_, i) => `/s${i}.js`);
// Each script keeps a function alive, so V8 keeps its source whenever a client attaches.
const body = (i) => `window.f${i} = () => ${JSON.stringify('x'.repeat(20_000))};\nconsole.log('script ${i}');\n`;
const page = `<!doctype html><title>bench</title>${scripts.map((s) => `<script src="${s}"></script>`).join('')}<body>${'<div><p>row</p></div>'.repeat(2000)}</body>`;
const server = createServer((req, res) => {
  const i = scripts.indexOf(req.url);
  if (i >= 0) res.writeHead(200, { 'content-type': 'text/javascript' }).end(body(i));
  else res.writeHead(200, { 'content-type': 'text/html' }).end(page);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const loadBefore = loadavg()[0];

const chrome = findChrome(process.env.REA_CHROME_PATH || null);
const supervisor = createProcessSupervisor();
const profile = await supervisor.createTempDir('bench-chrome');
await supervisor.start(chrome, chromeFlags(profile));
let port = null;
while (port === null) {
  try {
    port = Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]) || null;
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
const endpoint = `http://127.0.0.1:${port}`;
const tab = await (await fetch(`${endpoint}/json/new?${encodeURIComponent(url)}`, { method: 'PUT' })).json();
await new Promise((resolve) => setTimeout(resolve, 2000));

const reaServer = stdioServer(process.execPath, [
  join(dirname(require.resolve('rea-mcp/package.json')), 'dist', 'bin.cjs'),
  'mcp',
]);
const devtoolsBin = join(
  dirname(require.resolve('chrome-devtools-mcp/package.json')),
  'build',
  'src',
  'bin',
  'chrome-devtools-mcp.js',
);
const devtoolsServer = stdioServer(
  process.execPath,
  [devtoolsBin, '--browserUrl', endpoint, '--no-usage-statistics', '--no-performance-crux'],
  { CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1' },
);

async function floor() {
  const client = await CDP({ target: `ws://127.0.0.1:${port}/devtools/page/${tab.id}`, local: true });
  const parsed = [];
  const consoleMessages = [];
  client.on('Debugger.scriptParsed', (p) => p.url && parsed.push(p));
  client.on('Runtime.consoleAPICalled', (p) => consoleMessages.push(p.type));
  await Promise.all(
    ['Page.enable', 'Runtime.enable', 'Log.enable', 'Debugger.enable', 'Network.enable'].map((m) => client.send(m)),
  );
  const tree = await client.send('Page.getResourceTree');
  const facts = await client.send('Runtime.evaluate', {
    expression: "({ t: document.title, n: document.getElementsByTagName('*').length })",
    returnByValue: true,
  });
  const cookies = await client.send('Network.getCookies');
  const hashes = [];
  for (const s of parsed)
    hashes.push(
      createHash('sha256')
        .update((await client.send('Debugger.getScriptSource', { scriptId: s.scriptId })).scriptSource)
        .digest('hex'),
    );
  await client.close();
  return {
    resources: tree.frameTree.resources.length,
    scripts: hashes.length,
    title: facts.result.value.t,
    cookies: cookies.cookies.length,
    console: consoleMessages.length,
  };
}

async function rea() {
  const context = {
    session: { target: null, binding: null, run_id: null },
    platform: process.platform,
    signal: new AbortController().signal,
    progress: { report() {} },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    ledger: null,
    clientFeatures: new Set(),
    supervisor: createCallSupervisor(),
  };
  const outcome = await executeTool(inspectWebPageTool, { endpoint, target_id: tab.id }, context);
  return { scripts: outcome.record.normalized_result.scripts.length, bytes: JSON.stringify(outcome.record).length };
}

async function reaMcp() {
  const result = await reaServer.call('inspect_web_page', { endpoint, target_id: tab.id });
  if (result.isError) throw new Error(`rea mcp: ${result.content[0].text}`);
  return { scripts: result.structuredContent.normalized_result.scripts.length, bytes: JSON.stringify(result).length };
}

let pageId = null;
async function devtoolsMcp() {
  const snapshot = await devtoolsServer.call('take_snapshot', { pageId });
  const network = await devtoolsServer.call('list_network_requests', { pageId });
  if (snapshot.isError || network.isError)
    throw new Error(`chrome-devtools-mcp: ${JSON.stringify([snapshot, network])}`);
  return { bytes: JSON.stringify(snapshot).length + JSON.stringify(network).length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = { floor, rea, reaMcp, devtoolsMcp };
const times = Object.fromEntries(Object.keys(rows).map((name) => [name, []]));
const shape = {};
let rss;
try {
  await Promise.all([reaServer.initialize(), devtoolsServer.initialize()]);
  const pages = (await devtoolsServer.call('list_pages', {})).content[0].text;
  pageId = Number(new RegExp(`^(\\d+): .*\\(${url.replace(/[./]/g, '\\$&')}\\)`, 'm').exec(pages)?.[1]);
  if (!Number.isInteger(pageId)) throw new Error(`chrome-devtools-mcp does not list the page: ${pages}`);
  // One unmeasured round each, so module loading and first attachments are not in the medians.
  for (const fn of Object.values(rows)) await fn();
  for (let i = 0; i < runs; i++) {
    for (const [name, fn] of Object.entries(rows)) {
      const started = performance.now();
      const result = await fn();
      times[name].push(performance.now() - started);
      shape[name] = result;
    }
  }
  rss = { rea: peakRss(reaServer.child.pid), devtools: peakRss(devtoolsServer.child.pid) };
} finally {
  await Promise.all([reaServer.close(), devtoolsServer.close()]);
  await supervisor.closeAll();
  server.close();
}
const m = Object.fromEntries(Object.entries(times).map(([name, xs]) => [name, median(xs)]));
const mb = (bytes) => (bytes === null ? 'unknown' : `${(bytes / 1024 / 1024).toFixed(0)} MB`);
console.log(
  `page: ${shape.floor.scripts} scripts, ${shape.floor.resources} resources, ${shape.floor.console} console messages; ${runs} interleaved runs each; load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after`,
);
console.log(
  `answers: inspect_web_page ${shape.rea.scripts} scripts hashed, ${shape.reaMcp.bytes} bytes over MCP; chrome-devtools-mcp ${shape.devtoolsMcp.bytes} bytes (snapshot and network list)`,
);
console.log(`floor (chrome-remote-interface script)      median ${m.floor.toFixed(0)} ms`);
console.log(
  `inspect_web_page in process                 median ${m.rea.toFixed(0)} ms; ratio to the floor ${(m.rea / m.floor).toFixed(2)}x (target <= 1.5x)`,
);
console.log(`inspect_web_page over rea mcp (stdio)       median ${m.reaMcp.toFixed(0)} ms`);
console.log(
  `chrome-devtools-mcp snapshot + network list median ${m.devtoolsMcp.toFixed(0)} ms; rea mcp / chrome-devtools-mcp ${(m.reaMcp / m.devtoolsMcp).toFixed(2)}x (target < 1x)`,
);
console.log(
  `peak RSS: this process (in-process inspect_web_page) ${mb(process.resourceUsage().maxRSS * 1024)}; rea mcp ${mb(rss.rea)}; chrome-devtools-mcp ${mb(rss.devtools)}`,
);

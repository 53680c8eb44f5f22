// @rea/provider-browser benchmark: inspect_web_page on one local page against the floor, a minimal
// chrome-remote-interface script that collects the same facts (frame tree and resources, every
// script's source hashed with SHA-256, console, title and element count, cookie names) from the same
// tab of the same headless Chromium, in the same run. Runs alternate so both see the same load.
// Reports the median wall time of each, their ratio (target: within 1.5x of the floor), and this
// process's peak RSS. chrome-devtools-mcp is not compared here.
// Usage: node bench/browser/run.mjs [--runs N]
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import CDP from 'chrome-remote-interface';
import { chromeFlags, findChrome, inspectWebPageTool } from '@rea/provider-browser';
import { createCallSupervisor, createProcessSupervisor, executeTool } from '@rea/provider-kit';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 7;
const scripts = Array.from({ length: 20 }, (_, i) => `/s${i}.js`);
const body = (i) => `window.v${i} = ${JSON.stringify('x'.repeat(20_000))};\nconsole.log('script ${i}');\n`;
const page = `<!doctype html><title>bench</title>${scripts.map((s) => `<script src="${s}"></script>`).join('')}<body>${'<div><p>row</p></div>'.repeat(2000)}</body>`;
const server = createServer((req, res) => {
  const i = scripts.indexOf(req.url);
  if (i >= 0) res.writeHead(200, { 'content-type': 'text/javascript' }).end(body(i));
  else res.writeHead(200, { 'content-type': 'text/html' }).end(page);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const supervisor = createProcessSupervisor();
const profile = await supervisor.createTempDir('bench-chrome');
await supervisor.start(findChrome(process.env.REA_CHROME_PATH || null), chromeFlags(profile));
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
  return { scripts: outcome.record.normalized_result.scripts.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = { rea: [], floor: [] };
let shape = null;
try {
  for (let i = 0; i < runs; i++) {
    for (const [name, fn] of [
      ['floor', floor],
      ['rea', rea],
    ]) {
      const started = performance.now();
      const result = await fn();
      times[name].push(performance.now() - started);
      if (name === 'floor') shape = result;
    }
  }
} finally {
  await supervisor.closeAll();
  server.close();
}
const [rm, fm] = [median(times.rea), median(times.floor)];
console.log(
  `page: ${shape.scripts} scripts, ${shape.resources} resources, ${shape.console} console messages; ${runs} runs each, load ${loadavg()[0].toFixed(1)}`,
);
console.log(
  `inspect_web_page median ${rm.toFixed(0)} ms; floor (chrome-remote-interface script) median ${fm.toFixed(0)} ms; ratio ${(rm / fm).toFixed(2)}x (target <= 1.5x)`,
);
console.log(`peak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

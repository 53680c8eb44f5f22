import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, ownedBrowsersGone, processesUsing, servePages } from './support.js';

const PAGE = `<!doctype html><title>search</title><body>
<input id="q"><button id="go">Go</button><ul id="out"></ul>
<select id="sort"><option value="name">name</option><option value="date">date</option></select>
<script>
document.getElementById('go').addEventListener('click', async () => {
  const q = document.getElementById('q').value;
  const res = await fetch('/api?q=' + encodeURIComponent(q));
  const items = await res.json();
  console.log('results', items.length);
  const out = document.getElementById('out');
  out.replaceChildren();
  for (const item of items) { const li = document.createElement('li'); li.textContent = item; out.append(li); }
  out.dataset.count = String(items.length);
  if (items.length === 0) alert('nothing found');
});
</script></body>`;

let server: Awaited<ReturnType<typeof servePages>>;
const shotDirs: string[] = [];

beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: PAGE },
    '/api': (req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(q === 'notes' ? ['a', 'b', 'c'] : []));
    },
    // A page whose request is never answered, and a form that leaves it for another page.
    '/waiting': {
      type: 'text/html',
      body: '<!doctype html><form action="/left"><input name="q"></form><script>fetch("/never")</script>',
    },
    '/never': () => undefined,
    '/left': { type: 'text/html', body: '<!doctype html><p>left</p>' },
  });
});

afterAll(async () => {
  for (const dir of shotDirs) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

describe('capture_browser_scenario', () => {
  it('should run the actions in order and capture requests, console, DOM growth, a dialog and a screenshot, with progress per action', async () => {
    const progress: string[] = [];
    const result = await call(
      captureBrowserScenarioTool,
      {
        url: `${server.origin}/`,
        actions: [
          { action: 'type', selector: '#q', text: 'notes' },
          { action: 'click', selector: '#go' },
          { action: 'wait_for_selector', selector: '#out li:nth-child(3)' },
          { action: 'select', selector: '#sort', value: 'date' },
          { action: 'type', selector: '#q', text: 'zzz' },
          { action: 'click', selector: '#go' },
          { action: 'wait_for_network_idle', idle_ms: 300 },
          { action: 'screenshot' },
        ],
      },
      { progress: (m) => progress.push(m) },
    );
    if (result.error) throw result.error;
    const record = (result.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record;
    const capture = record.normalized_result;
    shotDirs.push(...capture.screenshots.map((s) => dirname(s.path)));
    expect(capture.actions.map((a) => a.outcome)).toEqual(Array(8).fill('ok'));
    expect(progress.filter((m) => m.startsWith('action '))).toHaveLength(8);
    expect(capture.events).toContainEqual(
      expect.objectContaining({ kind: 'request', url: `${server.origin}/api?q=notes`, action: 1 }),
    );
    expect(capture.events).toContainEqual(
      expect.objectContaining({ kind: 'response', url: `${server.origin}/api?q=notes`, status: 200 }),
    );
    expect(capture.events).toContainEqual(expect.objectContaining({ kind: 'console', detail: 'log: results 3' }));
    expect(capture.events).toContainEqual(expect.objectContaining({ kind: 'dialog', detail: 'alert: nothing found' }));
    // One DOM change summary per completed action, also in the event sequence; the three results are
    // added under the list (and removed by the second search), whose data-count changes.
    expect(capture.dom_changes.map((d) => d.action)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(capture.events.filter((e) => e.kind === 'dom')).toHaveLength(8);
    const changes = capture.dom_changes.flatMap((d) => d.changes);
    expect(changes.filter((c) => c.type === 'added' && c.selector === 'ul#out > li')).toHaveLength(3);
    expect(changes.filter((c) => c.type === 'removed' && c.selector === 'ul#out > li')).toHaveLength(3);
    expect(changes).toContainEqual({ type: 'attribute', selector: 'ul#out', attribute: 'data-count' });
    expect(capture.dom_changes.reduce((n, d) => n + d.added, 0)).toBeGreaterThanOrEqual(3);
    // Every event's seq is its position, and each action's range covers exactly its events.
    capture.events.forEach((e, i) => expect(e.seq).toBe(i));
    for (const a of capture.actions.filter((x) => x.first_event !== null)) {
      const own = capture.events.filter((e) => e.seq >= a.first_event! && e.seq <= a.last_event!);
      expect(own.every((e) => e.action === a.index)).toBe(true);
    }
    const [shot] = capture.screenshots;
    const bytes = readFileSync(shot!.path);
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(shot).toMatchObject({
      action: 7,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should count a request of a document the page has left as ended, and name the requests still in flight when the network is never idle', async () => {
    const left = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/waiting`,
      actions: [
        { action: 'wait_for_selector', selector: 'input' },
        { action: 'type', selector: 'input', text: 'x' },
        { action: 'press', key: 'Enter' },
        { action: 'wait_for_selector', selector: 'p' },
        { action: 'wait_for_network_idle', idle_ms: 300, timeout_ms: 5000 },
      ],
    });
    if (left.error) throw left.error;
    const capture = (left.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record.normalized_result;
    expect(capture.actions.map((a) => a.outcome)).toEqual(Array(5).fill('ok'));
    expect(capture.actions[1]!.detail).toBe('typed 1 character');
    // The unanswered request was made, and never answered, before the page moved on.
    expect(capture.events).toContainEqual(expect.objectContaining({ kind: 'request', url: `${server.origin}/never` }));
    expect(capture.events).not.toContainEqual(
      expect.objectContaining({ url: `${server.origin}/never`, kind: 'response' }),
    );
    expect(capture.events).toContainEqual(
      expect.objectContaining({ kind: 'navigation', url: `${server.origin}/left?q=x` }),
    );
    expect(ownedBrowsersGone(left.dirs)).toBe(true);

    const stayed = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/waiting`,
      actions: [{ action: 'wait_for_network_idle', idle_ms: 300, timeout_ms: 1500 }],
    });
    expect(isReaError(stayed.error) && stayed.error.code).toBe('execution_failure');
    const error = stayed.error as { details: Record<string, unknown>; remediation: string };
    expect(error.details['in_flight']).toEqual([`${server.origin}/never`]);
    expect(error.remediation).toContain(`${server.origin}/never`);
    expect(ownedBrowsersGone(stayed.dirs)).toBe(true);
  });

  it('should keep the partial capture in details.partial_observation when an action fails', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      actions: [
        { action: 'type', selector: '#q', text: 'notes' },
        { action: 'click', selector: '#missing' },
        { action: 'screenshot' },
      ],
    });
    expect(isReaError(result.error) && result.error.code).toBe('execution_failure');
    const partial = (result.error as { details: { partial_observation: ScenarioCapture } }).details.partial_observation;
    expect(partial.actions.map((a) => a.outcome)).toEqual(['ok', 'failed', 'not-run']);
    expect(partial.actions[1]!.detail).toContain('#missing');
    expect(partial.events.some((e) => e.kind === 'navigation' && e.url === `${server.origin}/`)).toBe(true);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should stop on cancellation within an action as cancelled, keeping the partial capture, with the browser and profile gone', async () => {
    const controller = new AbortController();
    const current: string[] = [];
    let profileSeen = false;
    const result = await call(
      captureBrowserScenarioTool,
      {
        url: `${server.origin}/`,
        actions: [
          { action: 'type', selector: '#q', text: 'notes' },
          { action: 'click', selector: '#go' },
          { action: 'wait', ms: 600_000 },
          { action: 'screenshot' },
        ],
      },
      {
        signal: controller.signal,
        onDir: (dir) => current.push(dir),
        progress: (m) => {
          if (!m.startsWith('action 3')) return;
          profileSeen = current.some((dir) => processesUsing(dir).length > 0);
          setImmediate(() => controller.abort());
        },
      },
    );
    expect(profileSeen).toBe(true);
    expect(isReaError(result.error) && result.error.code).toBe('cancelled');
    const partial = (result.error as { details: { partial_observation: ScenarioCapture } }).details.partial_observation;
    // The wait that was running is reported as not completed, the screenshot as never run.
    expect(partial.actions.map((a) => a.outcome)).toEqual(['ok', 'ok', 'failed', 'not-run']);
    expect(partial.actions[2]!.detail).toMatch(/cancel/i);
    expect(partial.events).toContainEqual(
      expect.objectContaining({ kind: 'request', url: `${server.origin}/api?q=notes`, action: 1 }),
    );
    expect(partial.events_total).toBeGreaterThanOrEqual(partial.events.length);
    expect(result.dirs.length).toBeGreaterThan(0);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should end as target_unavailable with the partial capture when the browser is killed mid-capture', async () => {
    let killed = false;
    const current: string[] = [];
    const pending = call(
      captureBrowserScenarioTool,
      {
        url: `${server.origin}/`,
        actions: [
          { action: 'type', selector: '#q', text: 'x' },
          { action: 'wait', ms: 600_000 },
        ],
      },
      {
        onDir: (dir) => current.push(dir),
        progress: (m) => {
          if (!m.startsWith('action 2')) return;
          // Kill every process of this call's owned browser while the second action runs.
          setImmediate(() => {
            for (const dir of current) for (const pid of processesUsing(dir)) process.kill(pid, 'SIGKILL');
            killed = true;
          });
        },
      },
    );
    const result = await pending;
    expect(killed).toBe(true);
    expect(isReaError(result.error) && result.error.code).toBe('target_unavailable');
    const partial = (result.error as { details: { partial_observation: ScenarioCapture } }).details.partial_observation;
    expect(partial.actions.map((a) => a.outcome)).toEqual(['ok', 'failed']);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);
});

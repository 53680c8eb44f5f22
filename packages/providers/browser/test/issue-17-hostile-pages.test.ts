import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { inspectWebPageTool } from '@rea/provider-browser';
import type { WebPageInspection } from '@rea/provider-browser';
import { call, ownedBrowsersGone, processesUsing, servePages } from './support.js';

// 50 MB of DOM: 50 000 elements of about 1000 bytes of text each, built by the page itself.
const HUGE = `<!doctype html><title>huge</title><body><script>
const chunk = '<div class="row">' + 'x'.repeat(1000) + '</div>';
document.body.innerHTML = chunk.repeat(50000);</script>`;
const LOOP = '<!doctype html><title>loop</title><script>for (;;) {}</script>';
// A million console messages: the first 20,000 before the load event (so the observation limit of
// 10,000 is crossed before REA reads the page, however slow the machine), the rest in bursts while REA
// reads it.
const FLOOD = `<!doctype html><title>flood</title><body><script>
for (let i = 0; i < 20000; i++) console.log(i);
let next = 20000;
const burst = () => {
  for (const end = Math.min(next + 10000, 1000000); next < end; next++) console.log(next);
  if (next < 1000000) setTimeout(burst, 0);
};
setTimeout(burst, 0);</script>`;

const hanging: ServerResponse[] = [];
let server: Awaited<ReturnType<typeof servePages>>;

beforeAll(async () => {
  server = await servePages({
    '/huge': { type: 'text/html', body: HUGE },
    '/loop': { type: 'text/html', body: LOOP },
    '/flood': { type: 'text/html', body: FLOOD },
    // Sends the head of the document, then never finishes.
    '/never': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<!doctype html><title>never</title><p>partial');
      hanging.push(res);
    },
  });
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await server?.close();
});

function record(result: Awaited<ReturnType<typeof call>>): EvidenceRecord<WebPageInspection> {
  if (result.error) throw result.error;
  if (result.outcome?.kind !== 'evidence') throw new Error('expected Evidence');
  return result.outcome.record as EvidenceRecord<WebPageInspection>;
}

const kinds = (r: EvidenceRecord<WebPageInspection>) => r.limitations.map((l) => l.kind);

describe('inspect_web_page on hostile pages', () => {
  it('should bound the DOM outline of a 50 MB DOM and say so', async () => {
    const result = await call(inspectWebPageTool, {
      endpoint: 'owned',
      url: `${server.origin}/huge`,
      load_timeout_ms: 60_000,
      timeout_ms: 120_000,
    });
    const page = record(result);
    // Either the outline was read and cut at its budget, or the page was still too busy laying out
    // 50 MB to answer: both are a bounded result that says what it lacks.
    const dom = page.normalized_result.dom;
    expect(dom.outline.length).toBeLessThanOrEqual(500);
    expect(dom.truncated).toBe(true);
    if (dom.elements === null) expect(kinds(page)).toContain('page-unanswered');
    else expect(page.limitations).toContainEqual(expect.objectContaining({ kind: 'budget-reached', scope: 'dom' }));
    expect(page.coverage.status).toBe('partial');
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 180_000);

  it('should report a page whose script never yields with limitations, from what the browser knows', async () => {
    const result = await call(inspectWebPageTool, {
      endpoint: 'owned',
      url: `${server.origin}/loop`,
      load_timeout_ms: 2000,
      timeout_ms: 60_000,
    });
    const page = record(result);
    expect(kinds(page)).toEqual(expect.arrayContaining(['load-incomplete', 'page-unanswered']));
    expect(page.normalized_result.dom.elements).toBeNull();
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should report what loaded of a page that never finishes loading', async () => {
    const result = await call(inspectWebPageTool, {
      endpoint: 'owned',
      url: `${server.origin}/never`,
      load_timeout_ms: 2000,
      timeout_ms: 60_000,
    });
    const page = record(result);
    expect(kinds(page)).toContain('load-incomplete');
    expect(page.normalized_result.resources).toEqual([
      expect.objectContaining({ url: `${server.origin}/never`, status: 200 }),
    ]);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should keep the first console messages of a million and stop observing the flood', async () => {
    const result = await call(inspectWebPageTool, {
      endpoint: 'owned',
      url: `${server.origin}/flood`,
      // Waiting for the load event (not a short load timeout a loaded machine can reach first) makes
      // the flood cross the observation limit before the page is read.
      load_timeout_ms: 90_000,
      timeout_ms: 120_000,
    });
    const page = record(result);
    expect(page.normalized_result.console.messages).toHaveLength(200);
    expect(page.normalized_result.console.messages[0]).toEqual({ level: 'log', source: 'console-api', text: '0' });
    expect(page.normalized_result.console.total).toBeGreaterThanOrEqual(10_000);
    expect(kinds(page)).toContain('console-flood');
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 180_000);

  it('should end with provider_timeout at the call deadline and leave no browser', async () => {
    const result = await call(inspectWebPageTool, {
      endpoint: 'owned',
      url: `${server.origin}/never`,
      load_timeout_ms: 600_000,
      timeout_ms: 3000,
    });
    expect(isReaError(result.error) && result.error.code).toBe('provider_timeout');
    // The remedy names the setting to raise.
    expect(isReaError(result.error) && result.error.remediation).toContain('Raise timeout_ms (now 3000 ms)');
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should say what a request that names no page, or two, lacks or has too much of', async () => {
    const neither = await call(inspectWebPageTool, { endpoint: 'owned' });
    expect(neither.error).toMatchObject({ code: 'invalid_request' });
    expect((neither.error as Error).message).toContain('needs url (the page to load in a new tab) or target_id');
    expect((neither.error as Error).message).not.toContain('not both');
    const both = await call(inspectWebPageTool, { endpoint: 'owned', url: `${server.origin}/`, target_id: 'T1' });
    expect(both.error).toMatchObject({ code: 'invalid_request' });
    expect((both.error as Error).message).toContain('not both');
  });

  it('should end with cancelled when the request is cancelled mid-load, and leave no browser', async () => {
    const controller = new AbortController();
    const before = hanging.length;
    // No timer of the call may outlive it (a pending load timer kept the process alive for minutes).
    const set = jest.spyOn(globalThis, 'setTimeout');
    const clear = jest.spyOn(globalThis, 'clearTimeout');
    const pending = call(
      inspectWebPageTool,
      { endpoint: 'owned', url: `${server.origin}/never`, load_timeout_ms: 600_000, timeout_ms: 600_000 },
      { signal: controller.signal, progress: () => undefined },
    );
    // Cancel once the owned browser is serving the page: the server has seen the request.
    while (hanging.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    const result = await pending;
    expect(isReaError(result.error) && result.error.code).toBe('cancelled');
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
    expect(result.dirs.flatMap(processesUsing)).toEqual([]);
    const cleared = new Set<unknown>(clear.mock.calls.map(([timer]) => timer));
    const loadTimers: unknown[] = set.mock.calls.flatMap(([, ms], i) =>
      ms === 600_000 ? [set.mock.results[i]?.value] : [],
    );
    set.mockRestore();
    clear.mockRestore();
    expect(loadTimers.length).toBeGreaterThan(0);
    expect(loadTimers.filter((timer) => !cleared.has(timer)).length).toBe(0);
  }, 120_000);
});

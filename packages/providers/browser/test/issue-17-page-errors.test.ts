import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool, inspectWebPageTool } from '@rea/provider-browser';
import type { ScenarioCapture, WebPageInspection } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

// An uncaught exception while the page loads, and an unhandled rejection when the button is clicked.
const PAGE = `<!doctype html><title>errors</title><button id="b" onclick="Promise.reject(new Error('x'))">b</button>
<script>throw new Error("boom")</script>`;

let server: Awaited<ReturnType<typeof servePages>>;

beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: PAGE },
    '/chatty': { type: 'text/html', body: '<script>for (let i = 0; i < 250; i++) console.log(i);</script>' },
    // No "Failed to load resource" console message for a missing icon.
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  });
});
afterAll(() => server?.close());

function value<T>(result: Awaited<ReturnType<typeof call>>): T {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<T> }).record.normalized_result;
}

describe('page errors', () => {
  it('should list uncaught exceptions in the console of inspect_web_page as DevTools shows them', async () => {
    const result = await call(inspectWebPageTool, { url: `${server.origin}/` });
    const page = value<WebPageInspection>(result);
    expect(page.console.messages).toContainEqual({
      level: 'error',
      source: 'javascript',
      text: 'Uncaught Error: boom',
    });
    expect(page.console.total).toBe(page.console.messages.length);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should record uncaught exceptions and unhandled rejections as console events of a scenario', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      actions: [
        { action: 'click', selector: '#b' },
        { action: 'wait', ms: 200 },
      ],
    });
    const capture = value<ScenarioCapture>(result);
    expect(capture.events).toContainEqual(
      expect.objectContaining({ kind: 'console', detail: 'error: Uncaught Error: boom', action: null }),
    );
    expect(capture.events).toContainEqual(
      expect.objectContaining({ kind: 'console', detail: 'error: Uncaught (in promise) Error: x' }),
    );
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should state in limitations that console messages past the first 200 are not listed', async () => {
    const result = await call(inspectWebPageTool, { url: `${server.origin}/chatty` });
    if (result.error) throw result.error;
    const record = (result.outcome as unknown as { record: EvidenceRecord<WebPageInspection> }).record;
    expect(record.normalized_result.console).toMatchObject({ total: 250, messages: expect.any(Array) });
    expect(record.normalized_result.console.messages).toHaveLength(200);
    expect(record.limitations).toContainEqual({
      kind: 'budget-reached',
      message: 'Console lists the first 200 of 250 messages observed.',
      scope: 'console',
    });
    expect(record.coverage.status).toBe('partial');
  }, 120_000);
});

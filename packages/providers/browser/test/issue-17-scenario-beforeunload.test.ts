// A page's beforeunload handler does not stop a scenario: its prompt is accepted, so the navigation goes
// on, and the prompt is recorded.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, servePages } from './support.js';

// Chromium shows the prompt only for a page the user interacted with: the scenario clicks it first.
const GUARDED = `<!doctype html><title>guarded</title><button id="b">b</button><a id="away" href="/next">away</a>
<script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'unsaved'; });</script>`;

let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({
    '/guarded': { type: 'text/html', body: GUARDED },
    '/next': { type: 'text/html', body: '<!doctype html><title>next</title><p id="next">next</p>' },
  });
});
afterAll(() => server?.close());

const capture = (result: Awaited<ReturnType<typeof call>>) => {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record.normalized_result;
};

describe('capture_browser_scenario and beforeunload', () => {
  it('should leave a page whose beforeunload handler asks to stay on a navigate, and record the prompt', async () => {
    const done = capture(
      await call(captureBrowserScenarioTool, {
        url: `${server.origin}/guarded`,
        actions: [
          { action: 'click', selector: '#b' },
          { action: 'navigate', url: `${server.origin}/next` },
          { action: 'wait_for_selector', selector: '#next' },
        ],
      }),
    );
    expect(done.actions.map((a) => a.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(done.actions[1]!.detail).toBe('loaded (the beforeunload prompt of the page it left was accepted)');
    const navigate = done.events.filter((e) => e.action === 1);
    expect(navigate).toContainEqual(
      expect.objectContaining({ kind: 'dialog', detail: expect.stringMatching(/^beforeunload \(accepted\)/) }),
    );
    expect(navigate).toContainEqual(
      expect.objectContaining({ kind: 'navigation', url: `${server.origin}/next`, detail: 'main frame' }),
    );
  }, 120_000);

  it('should leave such a page when a click follows a link, too', async () => {
    const done = capture(
      await call(captureBrowserScenarioTool, {
        url: `${server.origin}/guarded`,
        actions: [
          { action: 'click', selector: '#b' },
          { action: 'click', selector: '#away' },
          { action: 'wait_for_selector', selector: '#next' },
        ],
      }),
    );
    expect(done.actions.map((a) => a.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(done.events).toContainEqual(
      expect.objectContaining({ kind: 'dialog', detail: expect.stringMatching(/^beforeunload \(accepted\)/) }),
    );
  }, 120_000);
});

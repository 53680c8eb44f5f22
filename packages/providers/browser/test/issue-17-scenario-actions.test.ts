import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

// Keys pressed in the input are listed in #keys.
const PAGE = `<!doctype html><title>actions</title><input id="q"><ol id="keys"></ol>
<select id="s"><option value="a">A</option><option value="b" selected>B</option></select>
<script>
for (const type of ['input', 'change']) document.getElementById('s').addEventListener(type, () => console.log(type));
document.getElementById('q').addEventListener('keydown', (e) => {
  const li = document.createElement('li'); li.textContent = JSON.stringify(e.key); document.getElementById('keys').append(li);
});
</script>`;

let server: Awaited<ReturnType<typeof servePages>>;

beforeAll(async () => {
  server = await servePages({ '/': { type: 'text/html', body: PAGE } });
});
afterAll(() => server?.close());

function capture(result: Awaited<ReturnType<typeof call>>): ScenarioCapture {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record.normalized_result;
}

describe('capture_browser_scenario actions', () => {
  it('should refuse a press of a key it cannot press, naming the accepted keys, before anything runs', async () => {
    for (const key of ['F5', 'Space', 'constructor']) {
      const result = await call(captureBrowserScenarioTool, {
        url: `${server.origin}/`,
        actions: [
          { action: 'wait', ms: 1 },
          { action: 'press', key },
        ],
      });
      expect(result.error).toMatchObject({
        code: 'invalid_request',
        details: { reason: 'unsupported-key', index: 1, key, accepted: expect.arrayContaining(['Enter', 'Tab']) },
      });
      // Refused before a browser was started.
      expect(result.dirs).toEqual([]);
    }
  });

  it('should press a single character, a space among them, as that key', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      actions: [
        { action: 'click', selector: '#q' },
        { action: 'press', key: ' ' },
        { action: 'press', key: 'a' },
        { action: 'press', key: 'Enter' },
      ],
    });
    const done = capture(result);
    expect(done.actions.map((a) => a.outcome)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const keys = done.dom_changes.flatMap((d) => d.changes).filter((c) => c.selector === 'ol#keys > li');
    expect(keys).toHaveLength(3);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should refuse a navigate to a URL the url input refuses, javascript: among them, before anything runs', async () => {
    for (const url of [
      'javascript:document.title = "ran"',
      'JavaScript:void 0',
      'chrome://version',
      'view-source:http://127.0.0.1/',
      'blob:http://127.0.0.1/x',
      'not a url',
    ]) {
      const result = await call(captureBrowserScenarioTool, {
        url: `${server.origin}/`,
        actions: [
          { action: 'wait', ms: 1 },
          { action: 'navigate', url },
        ],
      });
      expect(result.error).toMatchObject({
        code: 'invalid_request',
        message: `actions[1] (navigate) url "${url}" is not an http, https, file, about or data URL.`,
        details: { reason: 'invalid-url', index: 1, url, accepted: expect.arrayContaining(['http:', 'https:']) },
      });
      // Refused before a browser was started, so no action ran.
      expect(result.dirs).toEqual([]);
    }
    // The same rule as the url input's.
    expect(
      (await call(captureBrowserScenarioTool, { url: 'javascript:void 0', actions: [{ action: 'wait', ms: 1 }] }))
        .error,
    ).toMatchObject({
      code: 'invalid_request',
      details: { reason: 'invalid-url' },
    });
  });

  it('should navigate to a URL the rule accepts', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      actions: [{ action: 'navigate', url: 'data:text/html,<title>second</title>' }],
    });
    expect(capture(result).actions).toEqual([
      expect.objectContaining({ action: 'navigate', outcome: 'ok', detail: 'loaded' }),
    ]);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should leave the page unchanged when select names no option of the element', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      actions: [{ action: 'select', selector: '#s', value: 'missing' }],
    });
    expect(result.error).toMatchObject({ code: 'execution_failure', details: { reason: 'action-failed' } });
    const partial = (result.error as { details: { partial_observation: ScenarioCapture } }).details.partial_observation;
    // No input or change event was fired: the selection was not touched.
    expect(partial.events.filter((e) => e.kind === 'console')).toEqual([]);
    expect(partial.actions[0]).toMatchObject({ outcome: 'failed', detail: expect.stringContaining('no option') });

    const chosen = capture(
      await call(captureBrowserScenarioTool, {
        url: `${server.origin}/`,
        actions: [{ action: 'select', selector: '#s', value: 'a' }],
      }),
    );
    expect(chosen.events.filter((e) => e.kind === 'console').map((e) => e.detail)).toEqual([
      'log: input',
      'log: change',
    ]);
  }, 120_000);
});

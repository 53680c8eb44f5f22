// A scenario navigate waits for its page within a bound of its own (its timeout_ms, by default the call's
// load_timeout_ms), not the whole call's timeout_ms: a server that never answers fails the action at
// that bound, and a page that never finishes loading is done, as far as it loaded, at that bound.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: '<!doctype html><title>start</title><p id="start">start</p>' },
    // Never answers.
    '/silent': () => undefined,
    // Answers and starts its document, and never ends it: the page never fires load.
    '/endless': (_req, res) => {
      res.on('error', () => undefined);
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .write('<!doctype html><title>endless</title><p id="p">partly</p>');
    },
  });
});
afterAll(() => server?.close());

const partial = (result: Awaited<ReturnType<typeof call>>) =>
  isReaError(result.error) ? (result.error.details['partial_observation'] as ScenarioCapture) : null;

describe('capture_browser_scenario navigate', () => {
  it('should fail a navigate whose server never answers at its own timeout_ms, not the call deadline, and stop there', async () => {
    const started = Date.now();
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      timeout_ms: 120_000,
      actions: [
        { action: 'navigate', url: `${server.origin}/silent`, timeout_ms: 2000 },
        { action: 'wait', ms: 1 },
      ],
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.error).toMatchObject({
      code: 'execution_failure',
      details: { reason: 'navigation-timeout', url: `${server.origin}/silent`, timeout_ms: 2000 },
    });
    const capture = partial(result)!;
    expect(capture.actions.map((a) => a.outcome)).toEqual(['failed', 'not-run']);
    expect(capture.actions[0]!.detail).toMatch(/timed out.*2000 ms.*stays as it was/);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 180_000);

  it("should bound a navigate without timeout_ms by the call's load_timeout_ms", async () => {
    const started = Date.now();
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      load_timeout_ms: 1500,
      timeout_ms: 120_000,
      actions: [{ action: 'navigate', url: `${server.origin}/silent` }],
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.error).toMatchObject({
      code: 'execution_failure',
      details: { reason: 'navigation-timeout', timeout_ms: 1500 },
    });
  }, 180_000);

  it('should count a page that never finishes loading as done at the bound, and run the next actions on it', async () => {
    const started = Date.now();
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      load_timeout_ms: 60_000,
      timeout_ms: 120_000,
      actions: [
        { action: 'navigate', url: `${server.origin}/endless`, timeout_ms: 2000 },
        { action: 'wait_for_selector', selector: '#p' },
      ],
    });
    if (result.error) throw result.error;
    expect(Date.now() - started).toBeLessThan(30_000);
    const capture = (result.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record.normalized_result;
    expect(capture.actions.map((a) => [a.outcome, a.detail])).toEqual([
      ['ok', expect.stringContaining('not loaded within 2000 ms')],
      ['ok', 'found'],
    ]);
  }, 180_000);
});

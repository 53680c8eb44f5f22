import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool, inspectWebPageTool } from '@rea/provider-browser';
import type { ScenarioCapture, WebPageInspection } from '@rea/provider-browser';
import { call, servePages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;

beforeAll(async () => {
  server = await servePages({
    '/redirect': (_req, res) => res.writeHead(302, { location: '/other' }).end(),
    '/other': { type: 'text/html', body: '<!doctype html><title>other</title>' },
  });
});
afterAll(() => server?.close());

function value<T>(result: Awaited<ReturnType<typeof call>>): T {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<T> }).record.normalized_result;
}

describe('redirects', () => {
  it('should list each redirect hop among the resources of inspect_web_page', async () => {
    const page = value<WebPageInspection>(await call(inspectWebPageTool, { url: `${server.origin}/redirect` }));
    const documents = page.resources.filter((r) => r.type === 'Document');
    expect(documents.map((r) => [r.url, r.status])).toEqual([
      [`${server.origin}/redirect`, 302],
      [`${server.origin}/other`, 200],
    ]);
    expect(page.document.url).toBe(`${server.origin}/other`);
  }, 120_000);

  it('should record the redirecting response among the events of a scenario', async () => {
    const capture = value<ScenarioCapture>(
      await call(captureBrowserScenarioTool, {
        url: `${server.origin}/other`,
        actions: [{ action: 'navigate', url: `${server.origin}/redirect` }],
      }),
    );
    const own = capture.events.filter(
      (e) => e.action === 0 && (e.kind === 'request' || e.kind === 'response') && !e.url?.endsWith('/favicon.ico'),
    );
    expect(own.map((e) => [e.kind, e.url, e.status])).toEqual([
      ['request', `${server.origin}/redirect`, null],
      ['response', `${server.origin}/redirect`, 302],
      ['request', `${server.origin}/other`, null],
      ['response', `${server.origin}/other`, 200],
    ]);
  }, 120_000);
});

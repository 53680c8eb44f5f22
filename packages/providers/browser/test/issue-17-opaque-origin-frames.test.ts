// A frame whose origin is opaque (a data: document) has the origin its own location.origin gives:
// "null", not the browser's internal "://".
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { inspectWebPageTool } from '@rea/provider-browser';
import type { WebPageInspection } from '@rea/provider-browser';
import { call, servePages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({
    '/': {
      type: 'text/html',
      body: '<!doctype html><title>host</title><iframe src="data:text/html,<title>inner</title><p>inner"></iframe>',
    },
  });
});
afterAll(() => server?.close());

function inspection(result: Awaited<ReturnType<typeof call>>): WebPageInspection {
  if (result.error) throw result.error;
  if (result.outcome?.kind !== 'evidence') throw new Error('expected Evidence');
  return (result.outcome.record as EvidenceRecord<WebPageInspection>).normalized_result;
}

describe('frame origins', () => {
  it('should report the origin of a data: page as "null"', async () => {
    const page = inspection(await call(inspectWebPageTool, { url: 'data:text/html,<title>data page</title><p>x' }));
    expect(page.document.title).toBe('data page');
    expect(page.document.frames).toEqual([expect.objectContaining({ parent_id: null, origin: 'null' })]);
  }, 120_000);

  it('should report a data: iframe\'s origin as "null" beside its parent\'s own', async () => {
    const page = inspection(await call(inspectWebPageTool, { url: `${server.origin}/` }));
    expect(page.document.frames.map((f) => [f.url.slice(0, 5), f.origin])).toEqual([
      ['http:', server.origin],
      ['data:', 'null'],
    ]);
  }, 120_000);
});

// `origins` filters what a tool says it filters, and takes origins only: inspect_web_page leaves out the
// scripts and resources of other origins (here the same server reached as localhost, another origin),
// a string that is no origin is invalid_request, and a tool that filters nothing by origin takes none.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool, inspectWebPageTool } from '@rea/provider-browser';
import type { WebPageInspection } from '@rea/provider-browser';
import { call, servePages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
/** The same server reached as localhost: another origin. */
let other: string;

beforeAll(async () => {
  server = await servePages({
    '/': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>o</title><script src="/own.js"></script><script src="${other}/other.js"></script>`,
      );
    },
    '/own.js': { type: 'text/javascript', body: 'var own = 1;' },
    '/other.js': { type: 'text/javascript', body: 'var other = 2;' },
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  });
  other = server.origin.replace('127.0.0.1', 'localhost');
});
afterAll(() => server?.close());

function value<T>(result: Awaited<ReturnType<typeof call>>): T {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<T> }).record.normalized_result;
}

const urls = (list: Array<{ url: string | null }>) => list.map((s) => s.url).filter((u) => u !== null);

describe('origin filters', () => {
  it('should report only the scripts and resources of the origins named', async () => {
    const all = value<WebPageInspection>(await call(inspectWebPageTool, { url: `${server.origin}/` }));
    expect(urls(all.scripts)).toEqual(expect.arrayContaining([`${server.origin}/own.js`, `${other}/other.js`]));
    const only = value<WebPageInspection>(
      await call(inspectWebPageTool, { url: `${server.origin}/`, origins: [other] }),
    );
    expect(urls(only.scripts)).toEqual([`${other}/other.js`]);
    expect(only.resources.length).toBeGreaterThan(0);
    expect(only.resources.every((r) => r.url.startsWith(`${other}/`))).toBe(true);
  }, 120_000);

  it('should take an origin written with the root path as that origin', async () => {
    const result = await call(inspectWebPageTool, { url: `${server.origin}/`, origins: [`${server.origin}/`] });
    const page = value<WebPageInspection>(result);
    expect(urls(page.scripts)).toEqual([`${server.origin}/own.js`]);
    expect(page.document.frames).toEqual([expect.objectContaining({ url: `${server.origin}/` })]);
    expect(page.resources.map((r) => r.url)).toEqual(
      expect.arrayContaining([`${server.origin}/`, `${server.origin}/own.js`]),
    );
    expect(page.resources.every((r) => r.url.startsWith(`${server.origin}/`))).toBe(true);
    // Recorded as the origin it filters by.
    const record = (result.outcome as unknown as { record: EvidenceRecord<WebPageInspection> }).record;
    expect(record.parameters['origins']).toEqual([server.origin]);
  }, 120_000);

  it('should refuse a string that is no origin with invalid_request naming it', async () => {
    for (const origin of ['not an origin', `${server.origin}/path`, `${server.origin}//`]) {
      const result = await call(inspectWebPageTool, { url: `${server.origin}/`, origins: [origin] });
      expect(result.error).toMatchObject({ code: 'invalid_request' });
      expect((result.error as Error).message).toContain(JSON.stringify(origin));
    }
  });

  it('should refuse origins for a tool that filters nothing by origin', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      origins: [server.origin],
      actions: [{ action: 'wait', ms: 10 }],
    });
    expect(result.error).toMatchObject({ code: 'invalid_request' });
  });
});

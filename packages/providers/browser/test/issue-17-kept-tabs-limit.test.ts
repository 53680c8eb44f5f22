// A session's owned browser keeps at most 8 tabs it opened for url: past that, the least recently used is
// closed, and a later call naming it is told why it is gone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSessionResources } from '@rea/provider-kit';
import type { SessionResourcesHost } from '@rea/provider-kit';
import { inspectWebPageTool } from '@rea/provider-browser';
import { call, servePages, sessionBrowserPages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
let resources: SessionResourcesHost;
beforeAll(async () => {
  server = await servePages({ '/': { type: 'text/html', body: '<!doctype html><title>tab</title><p>tab</p>' } });
  resources = createSessionResources();
});
afterAll(async () => {
  await resources?.closeAll();
  await server?.close();
});

const listedPages = () => sessionBrowserPages(resources);

async function open(): Promise<string> {
  const result = await call(inspectWebPageTool, { url: `${server.origin}/` }, { sessionResources: resources });
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: { normalized_result: { target: { id: string } } } }).record
    .normalized_result.target.id;
}

describe('the tabs a session keeps', () => {
  it('should close the least recently used tab past 8, and say so to a call that names it', async () => {
    const tabs: string[] = [];
    for (let i = 0; i < 8; i += 1) tabs.push(await open());
    expect(await listedPages()).toEqual(expect.arrayContaining(tabs));
    // Naming the first tab makes it the most recently used: the second is now the oldest.
    const used = await call(inspectWebPageTool, { target_id: tabs[0] }, { sessionResources: resources });
    expect(used.error).toBeNull();
    const ninth = await open();
    let pages = await listedPages();
    expect(pages).not.toContain(tabs[1]);
    expect(pages).toEqual(expect.arrayContaining([tabs[0]!, ...tabs.slice(2), ninth]));
    const tenth = await open();
    pages = await listedPages();
    expect(pages).not.toContain(tabs[2]);
    expect(pages).toEqual(expect.arrayContaining([tabs[0]!, ...tabs.slice(3), ninth, tenth]));
    const gone = await call(inspectWebPageTool, { target_id: tabs[1] }, { sessionResources: resources });
    expect(gone.error).toMatchObject({
      code: 'not_found',
      details: { reason: 'tab-limit', target_id: tabs[1], limit: 8 },
    });
  }, 300_000);
});

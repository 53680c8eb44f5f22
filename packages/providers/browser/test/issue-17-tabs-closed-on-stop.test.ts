// A call stopped by its deadline or by cancellation leaves no tab of its own open in the session's
// owned browser: checked with the browser's own DevTools HTTP listing (/json/list).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSessionResources } from '@rea/provider-kit';
import type { SessionResourcesHost } from '@rea/provider-kit';
import { captureBrowserScenarioTool, inspectWebPageTool } from '@rea/provider-browser';
import { call, servePages, sessionBrowserPages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
let resources: SessionResourcesHost;
beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: '<!doctype html><title>kept</title><p>kept</p>' },
    // A page whose script never yields.
    '/busy': { type: 'text/html', body: '<!doctype html><title>busy</title><script>for (;;) {}</script>' },
  });
  resources = createSessionResources();
});
afterAll(async () => {
  await resources?.closeAll();
  await server?.close();
});

const listedPages = () => sessionBrowserPages(resources);

/** A scenario that is stopped while it waits on a loaded page of its own tab. */
const waiting = { url: `placeholder`, actions: [{ action: 'wait', ms: 120_000 }] };

describe('the tab of a call stopped by its deadline or cancelled', () => {
  let before: string[];
  beforeAll(async () => {
    // The session's browser, with one kept tab.
    const first = await call(inspectWebPageTool, { url: `${server.origin}/` }, { sessionResources: resources });
    if (first.error) throw first.error;
    before = await listedPages();
  });

  it('should be closed when the call runs into its deadline', async () => {
    const result = await call(
      captureBrowserScenarioTool,
      { ...waiting, url: `${server.origin}/`, timeout_ms: 3000 },
      { sessionResources: resources },
    );
    expect(result.error).toMatchObject({ code: 'provider_timeout' });
    expect(await listedPages()).toEqual(before);
  }, 120_000);

  it('should be closed when the call is cancelled', async () => {
    const controller = new AbortController();
    const result = await call(
      captureBrowserScenarioTool,
      { ...waiting, url: `${server.origin}/` },
      {
        sessionResources: resources,
        signal: controller.signal,
        progress: (message) => message.includes('action 1') && setTimeout(() => controller.abort(), 500),
      },
    );
    expect(result.error).toMatchObject({ code: 'cancelled' });
    expect(await listedPages()).toEqual(before);
  }, 120_000);

  it('should be closed when the deadline comes while the page never yields', async () => {
    const result = await call(
      inspectWebPageTool,
      { url: `${server.origin}/busy`, load_timeout_ms: 60_000, timeout_ms: 3000 },
      { sessionResources: resources },
    );
    expect(result.error).toMatchObject({ code: 'provider_timeout' });
    expect(await listedPages()).toEqual(before);
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { discoverWebmcpToolsTool, listBrowserTargetsTool } from '@rea/provider-browser';
import type { ProcessSupervisor } from '@rea/provider-kit';
import { call, servePages, startSharedBrowser } from './support.js';

// Registers one tool through whatever the browser offers, named after what the page found: which
// objects have a modelContext, and whether it has provideContext.
const FEATURE_TESTS = `<!doctype html><title>feature tests</title><script>
const found = ['navigator', 'document'].filter((holder) => 'modelContext' in window[holder]);
const mc = navigator.modelContext || document.modelContext;
if (mc) {
  const provide = typeof mc.provideContext === 'function' ? '_provide' : '';
  mc.registerTool({ name: 'saw_' + found.join('_') + provide, description: 'What the page found.',
    inputSchema: { type: 'object' }, execute: () => ({}) });
}
document.title = 'done';
</script>
<form toolname="find_product" tooldescription="Finds a product by name.">
<input name="query" required toolparamdescription="Words of the product name"><input name="limit" type="number"><button>Go</button></form>`;

// Brings its own navigator.modelContext, as a polyfill does, and registers through it.
const POLYFILL = `<!doctype html><title>polyfill</title><script>
if (!('modelContext' in navigator))
  Object.defineProperty(navigator, 'modelContext', { value: { registerTool() {} }, configurable: true });
navigator.modelContext.registerTool({ name: 'polyfilled', description: 'Through the page polyfill.', inputSchema: { type: 'object' } });
</script>`;

interface Found {
  instrumented: boolean;
  browser_surface: boolean;
  tools: Array<{ name: string; source: string; observed_by: string[]; input_schema: unknown }>;
}

let server: Awaited<ReturnType<typeof servePages>>;
let plain: { endpoint: string; supervisor: ProcessSupervisor };
beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: FEATURE_TESTS },
    '/polyfill': { type: 'text/html', body: POLYFILL },
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  });
  // A browser without the WebMCP feature: it offers no modelContext at all.
  plain = await startSharedBrowser((flags) => flags.filter((f) => !f.startsWith('--enable-features=')));
}, 60_000);
afterAll(async () => {
  await plain?.supervisor.closeAll();
  await server?.close();
});

function found(result: Awaited<ReturnType<typeof call>>): EvidenceRecord<Found> {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<Found> }).record;
}

const imperative = (record: EvidenceRecord<Found>) =>
  record.normalized_result.tools.filter((t) => t.source === 'imperative').map((t) => [t.name, t.observed_by]);

describe('discover_webmcp_tools instrumentation and feature tests', () => {
  it('should leave a page that feature-tests the API on the branch the browser gives it (document.modelContext only)', async () => {
    const record = found(await call(discoverWebmcpToolsTool, { url: `${server.origin}/` }));
    expect(record.normalized_result).toMatchObject({ instrumented: true, browser_surface: true });
    // Chromium's own surface is document.modelContext, with no provideContext: the page sees just that,
    // and the tool it registers is seen by the browser and by the instrumentation alike.
    expect(imperative(record)).toEqual([['saw_document', ['browser', 'instrumentation']]]);
  }, 120_000);

  it('should add no modelContext to a browser that offers none', async () => {
    const { endpoint } = plain;
    const created = await fetch(`${endpoint}/json/new?${encodeURIComponent(`${server.origin}/`)}`, { method: 'PUT' });
    const tab = (await created.json()) as { id: string };
    for (let i = 0; i < 400; i++) {
      const listed = found(await call(listBrowserTargetsTool, { endpoint })).normalized_result as unknown as {
        targets: Array<{ id: string; title: string }>;
      };
      if (listed.targets.find((t) => t.id === tab.id)?.title === 'done') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const record = found(await call(discoverWebmcpToolsTool, { endpoint, target_id: tab.id, reload: true }));
    expect(record.normalized_result).toMatchObject({ instrumented: true, browser_surface: false });
    // Without REA the page finds no API and registers nothing: so it must be with REA.
    expect(imperative(record)).toEqual([]);
    expect(record.limitations.map((l) => l.kind)).toEqual(['browser-webmcp-unavailable']);
    // Its form is still read, by REA alone.
    expect(record.normalized_result.tools).toEqual([
      expect.objectContaining({
        name: 'find_product',
        source: 'declarative',
        observed_by: ['form-scan'],
        input_schema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'Words of the product name' },
            limit: { type: 'number' },
          },
          required: ['query'],
        },
      }),
    ]);
  }, 120_000);

  it("should say that registrations through a page's own modelContext are not observed", async () => {
    const record = found(await call(discoverWebmcpToolsTool, { url: `${server.origin}/polyfill` }));
    expect(imperative(record)).toEqual([]);
    expect(record.limitations).toContainEqual(
      expect.objectContaining({
        kind: 'imperative-unobserved',
        message: expect.stringContaining(`navigator.modelContext in ${server.origin}/polyfill is the page's own`),
      }),
    );
    expect(record.coverage.status).toBe('partial');
  }, 120_000);
});

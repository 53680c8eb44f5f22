import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { discoverWebmcpToolsTool, listBrowserTargetsTool } from '@rea/provider-browser';
import type { ProcessSupervisor } from '@rea/provider-kit';
import { call, ownedBrowsersGone, servePages, startSharedBrowser } from './support.js';

// Registers tools through document.modelContext (Chromium's own surface when its WebMCP feature is on),
// with provideContext too where the browser has it, and declares one form.
const PAGE = `<!doctype html><title>shop</title>
<script>
const mc = document.modelContext;
if (mc) {
  mc.registerTool({ name: 'add_to_cart', description: 'Adds an item to the cart.',
    inputSchema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] }, execute: () => ({}) });
  mc.registerTool({ name: 'track_order', description: 'Shows where an order is.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, execute: () => ({}) });
  if (typeof mc.provideContext === 'function')
    mc.provideContext({ tools: [{ name: 'checkout', description: 'Pays for the cart.', inputSchema: { type: 'object', properties: {} }, execute: () => ({}) }] });
}
</script>
<body><form toolname="find_product" tooldescription="Finds a product by name.">
<input name="query" required toolparamdescription="Words of the product name"><input name="limit" type="number"><button>Go</button></form></body>`;

interface Found {
  instrumented: boolean;
  browser_surface: boolean;
  tools: Array<Record<string, unknown>>;
}

let server: Awaited<ReturnType<typeof servePages>>;
let shared: { endpoint: string; supervisor: ProcessSupervisor };
beforeAll(async () => {
  server = await servePages({ '/': { type: 'text/html', body: PAGE } });
  // A browser started as the owned one is, with the WebMCP feature.
  shared = await startSharedBrowser();
}, 60_000);
afterAll(async () => {
  await shared?.supervisor.closeAll();
  await server?.close();
});

function found(result: Awaited<ReturnType<typeof call>>): { found: Found; record: EvidenceRecord } {
  if (result.error) throw result.error;
  const record = (result.outcome as { record: EvidenceRecord }).record;
  const value = record.normalized_result as unknown as Found;
  return {
    found: { ...value, tools: [...value.tools].sort((a, b) => String(a['name']).localeCompare(String(b['name']))) },
    record,
  };
}

const tool = (name: string, description: string, input_schema: unknown, source: string, observed_by: string[]) => ({
  name,
  description,
  input_schema,
  source,
  observed_by,
  frame: `${server.origin}/`,
  origin: server.origin,
});
const ADD = [
  'add_to_cart',
  'Adds an item to the cart.',
  { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
] as const;
const TRACK = [
  'track_order',
  'Shows where an order is.',
  { type: 'object', properties: { id: { type: 'string' } } },
] as const;

describe('discover_webmcp_tools', () => {
  it('should report the tools the owned browser itself knows, those the instrumentation saw and the forms, naming each source', async () => {
    const result = await call(discoverWebmcpToolsTool, { url: `${server.origin}/` });
    const { found: page, record } = found(result);
    expect(page.instrumented).toBe(true);
    expect(page.browser_surface).toBe(true);
    // Chromium 156 has no provideContext: the page registers no checkout tool, and REA adds none.
    expect(page.tools).toEqual([
      tool(...ADD, 'imperative', ['browser', 'instrumentation']),
      // Chromium's form schema marks a number field as an integer-valued number.
      tool(
        'find_product',
        'Finds a product by name.',
        expect.objectContaining({ required: ['query'] }),
        'declarative',
        ['browser', 'form-scan'],
      ),
      tool(...TRACK, 'imperative', ['browser', 'instrumentation']),
    ]);
    expect(page.tools.filter((t) => t['name'] === 'find_product')).toHaveLength(1);
    expect(record.limitations.map((l) => l.kind)).not.toContain('browser-webmcp-unavailable');
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 90_000);

  it('should observe an external tab as it is, then with reload: true see its imperative registrations', async () => {
    const { endpoint } = shared;
    const created = await fetch(`${endpoint}/json/new?${encodeURIComponent(`${server.origin}/`)}`, { method: 'PUT' });
    const tab = (await created.json()) as { id: string };
    for (let i = 0; i < 400; i++) {
      const listed = (await call(listBrowserTargetsTool, { endpoint })).outcome as { record: EvidenceRecord };
      const targets = (listed.record.normalized_result as unknown as { targets: Array<{ id: string; title: string }> })
        .targets;
      if (targets.find((t) => t.id === tab.id)?.title === 'shop') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const asIs = found(await call(discoverWebmcpToolsTool, { endpoint, target_id: tab.id }));
    expect(asIs.found).toMatchObject({ instrumented: false, browser_surface: true });
    expect(asIs.found.tools).toEqual([
      tool(...ADD, 'imperative', ['browser']),
      tool(
        'find_product',
        'Finds a product by name.',
        expect.objectContaining({ required: ['query'] }),
        'declarative',
        ['browser', 'form-scan'],
      ),
      tool(...TRACK, 'imperative', ['browser']),
    ]);
    expect(asIs.record.limitations.map((l) => l.kind)).toEqual(['imperative-unobserved']);

    const reloaded = found(await call(discoverWebmcpToolsTool, { endpoint, target_id: tab.id, reload: true }));
    expect(reloaded.found).toMatchObject({ instrumented: true, browser_surface: true });
    expect(reloaded.found.tools).toEqual([
      tool(...ADD, 'imperative', ['browser', 'instrumentation']),
      tool(
        'find_product',
        'Finds a product by name.',
        expect.objectContaining({ required: ['query'] }),
        'declarative',
        ['browser', 'form-scan'],
      ),
      tool(...TRACK, 'imperative', ['browser', 'instrumentation']),
    ]);
    expect(reloaded.record.limitations.map((l) => l.kind)).not.toContain('imperative-unobserved');
    expect((reloaded.record.normalized_result as unknown as { target: { id: string } }).target.id).toBe(tab.id);
  }, 90_000);
});

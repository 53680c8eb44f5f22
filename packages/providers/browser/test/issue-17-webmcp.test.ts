import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { discoverWebmcpToolsTool } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

const PAGE = `<!doctype html><title>shop</title>
<script>
navigator.modelContext.registerTool({ name: 'add_to_cart', description: 'Adds an item to the cart.',
  inputSchema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] }, execute: () => ({}) });
navigator.modelContext.provideContext({ tools: [{ name: 'checkout', description: 'Pays for the cart.', inputSchema: { type: 'object', properties: {} }, execute: () => ({}) }] });
</script>
<body><form toolname="find_product" tooldescription="Finds a product by name.">
<input name="query" required toolparamdescription="Words of the product name"><input name="limit" type="number"><button>Go</button></form></body>`;

let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({ '/': { type: 'text/html', body: PAGE } });
});
afterAll(() => server?.close());

describe('discover_webmcp_tools', () => {
  it('should find tools registered imperatively before load and declared by forms, with their schemas', async () => {
    const result = await call(discoverWebmcpToolsTool, { url: `${server.origin}/` });
    if (result.error) throw result.error;
    const record = (result.outcome as { record: EvidenceRecord }).record;
    const found = record.normalized_result as { instrumented: boolean; tools: Array<Record<string, unknown>> };
    expect(found.instrumented).toBe(true);
    const frame = `${server.origin}/`;
    expect(found.tools).toEqual([
      {
        name: 'add_to_cart',
        description: 'Adds an item to the cart.',
        input_schema: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
        source: 'imperative',
        frame,
        origin: server.origin,
      },
      {
        name: 'checkout',
        description: 'Pays for the cart.',
        input_schema: { type: 'object', properties: {} },
        source: 'imperative',
        frame,
        origin: server.origin,
      },
      {
        name: 'find_product',
        description: 'Finds a product by name.',
        input_schema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'Words of the product name' },
            limit: { type: 'number' },
          },
          required: ['query'],
        },
        source: 'declarative',
        frame,
        origin: server.origin,
      },
    ]);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 90_000);
});

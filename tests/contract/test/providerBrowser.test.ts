import { afterAll, beforeAll, expect } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import { createBrowserProvider } from '@rea/provider-browser';

const PAGE =
  '<!doctype html><title>contract</title><script src="/app.js"></script><form toolname="search" tooldescription="Search"><input name="q"></form>';
const server = createServer((req, res) =>
  req.url === '/app.js'
    ? res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.ready = true;')
    : res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
);
let origin = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

/**
 * The advertised examples, each on a headless Chromium the call owns (a browser this file kept running
 * would count as a process left behind): a named tab of an external endpoint stands for a page served here.
 */
function exampleInput(_tool: string, input: unknown): Promise<unknown> {
  const { target_id: targetId, ...example } = input as Record<string, unknown>;
  if (targetId !== undefined || example['url'] !== undefined) example['url'] = `${origin}/`;
  return Promise.resolve({ ...example, endpoint: 'owned' });
}

describeProviderContract('browser (Chrome DevTools Protocol)', () => createBrowserProvider(), {
  exampleInput,
  capabilityProbes: {
    'browser-targets': async (c: CapabilityCheckContext) => {
      const outcome = await c.runTool('list_browser_targets', { endpoint: 'owned' });
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      expect((outcome.record.normalized_result as { targets: Array<{ type: string; url: string }> }).targets).toEqual([
        expect.objectContaining({ type: 'page', url: 'about:blank' }),
      ]);
    },
    'webmcp-discovery': async (c: CapabilityCheckContext) => {
      const outcome = await c.runTool('discover_webmcp_tools', { endpoint: 'owned', url: `${origin}/` });
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      expect(outcome.record.normalized_result).toMatchObject({
        instrumented: true,
        tools: [{ name: 'search', source: 'declarative' }],
      });
    },
    'web-page-inspection': async (c: CapabilityCheckContext) => {
      const outcome = await c.runTool('inspect_web_page', { endpoint: 'owned', url: `${origin}/` });
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      expect(outcome.record.normalized_result).toMatchObject({ document: { title: 'contract' } });
    },
  },
});

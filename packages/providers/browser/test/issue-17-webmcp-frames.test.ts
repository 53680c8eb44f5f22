import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { discoverWebmcpToolsTool } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

// A frame that registers a tool imperatively and declares a form.
const FRAME = `<!doctype html><title>frame</title>
<script>document.modelContext.registerTool({ name: 'in_frame', description: 'From a frame.', inputSchema: { type: 'object' }, execute: () => ({}) });</script>
<form toolname="frame_form" tooldescription="A form in a frame."><input name="q"></form>`;

let server: Awaited<ReturnType<typeof servePages>>;
let other: Awaited<ReturnType<typeof servePages>>;

beforeAll(async () => {
  // Another port of the same host: another origin of the same site, in the page's renderer process.
  other = await servePages({ '/frame': { type: 'text/html', body: FRAME } });
  server = await servePages({
    '/': { type: 'text/html', body: '<!doctype html><title>plain</title><p>no frames</p>' },
    '/framed': {
      type: 'text/html',
      body: `<!doctype html><title>framed</title><iframe src="/frame"></iframe><iframe src="${other.origin}/frame"></iframe>`,
    },
    '/frame': { type: 'text/html', body: FRAME },
    // localhost is another site than 127.0.0.1: its frame runs in another renderer process.
    '/isolated': (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>isolated</title><iframe src="${server.origin.replace('127.0.0.1', 'localhost')}/frame"></iframe>`,
        ),
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  });
});
afterAll(async () => {
  await server?.close();
  await other?.close();
});

interface Found {
  tools: Array<{ name: string; source: string; frame: string; observed_by: string[] }>;
}

function found(result: Awaited<ReturnType<typeof call>>): EvidenceRecord<Found> {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<Found> }).record;
}

describe('discover_webmcp_tools in frames', () => {
  it('should read the tools of every frame in the page process, same-origin or not', async () => {
    const result = await call(discoverWebmcpToolsTool, { url: `${server.origin}/framed` });
    const record = found(result);
    const seen = record.normalized_result.tools
      .filter((t) => t.observed_by.includes('instrumentation') || t.observed_by.includes('form-scan'))
      .map((t) => `${t.source} ${t.name} ${t.frame}`)
      .sort();
    expect(seen).toEqual(
      [
        `imperative in_frame ${server.origin}/frame`,
        `imperative in_frame ${other.origin}/frame`,
        `declarative frame_form ${server.origin}/frame`,
        `declarative frame_form ${other.origin}/frame`,
      ].sort(),
    );
    expect(record.limitations.map((l) => l.kind)).not.toContain('out-of-process-frames');
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should report complete coverage for a page without frames', async () => {
    const record = found(await call(discoverWebmcpToolsTool, { url: `${server.origin}/` }));
    expect(record.limitations).toEqual([]);
    expect(record.coverage).toEqual({ status: 'complete', reasons: [] });
  }, 120_000);

  it('should name a frame in another renderer process as not read', async () => {
    const record = found(await call(discoverWebmcpToolsTool, { url: `${server.origin}/isolated` }));
    expect(record.limitations).toEqual([
      expect.objectContaining({ kind: 'out-of-process-frames', message: expect.stringMatching(/^1 frame/) }),
    ]);
    expect(record.coverage.status).toBe('partial');
  }, 120_000);
});

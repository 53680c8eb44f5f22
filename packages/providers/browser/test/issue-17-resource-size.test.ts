import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import type { EvidenceRecord } from '@rea/evidence';
import { inspectWebPageTool } from '@rea/provider-browser';
import type { WebPageInspection } from '@rea/provider-browser';
import { call, servePages } from './support.js';

const PAGE = `<!doctype html><title>sizes</title><link rel="stylesheet" href="/zipped.css"><script src="/padded.js"></script>
<script src="/moved.js"></script>`;
const PADDED = `window.padded = '${'p'.repeat(1000)}';`;
const ZIPPED = `body { color: red }\n${'/* filler */\n'.repeat(400)}`;

let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: PAGE },
    // Headers several times the size of the body.
    '/padded.js': { type: 'text/javascript', body: PADDED, headers: { 'x-padding': 'h'.repeat(6000) } },
    // Sent compressed: the page receives the decoded text.
    '/zipped.css': (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/css', 'content-encoding': 'gzip' }).end(gzipSync(ZIPPED)),
    '/moved.js': (_req, res) => res.writeHead(302, { location: '/padded.js?again' }).end('moved'),
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  });
});
afterAll(() => server?.close());

describe('inspect_web_page resource sizes', () => {
  it('should give each resource the size of its body as the page received it, without headers', async () => {
    const result = await call(inspectWebPageTool, { url: `${server.origin}/` });
    if (result.error) throw result.error;
    const { resources } = (result.outcome as unknown as { record: EvidenceRecord<WebPageInspection> }).record
      .normalized_result;
    const size = (url: string) => resources.filter((r) => r.url === `${server.origin}${url}`).map((r) => r.size);
    expect(size('/')).toEqual([Buffer.byteLength(PAGE)]);
    expect(size('/padded.js')).toEqual([Buffer.byteLength(PADDED)]);
    expect(size('/zipped.css')).toEqual([Buffer.byteLength(ZIPPED)]);
    // A redirect hop delivers no body to the page; the hop after it does.
    expect(size('/moved.js')).toEqual([null]);
    expect(size('/padded.js?again')).toEqual([Buffer.byteLength(PADDED)]);
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { inspectWebPageTool, listBrowserTargetsTool } from '@rea/provider-browser';
import type { WebPageInspection } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages, startSharedBrowser } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
// The same server under another site's name: localhost is not the same site as 127.0.0.1.
let crossSite: string;

beforeAll(async () => {
  server = await servePages({
    '/isolated': (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>isolated</title><body onload="document.title = 'loaded'"><iframe src="${crossSite}/frame"></iframe>`,
        ),
    '/frame': { type: 'text/html', body: '<!doctype html><title>frame</title><iframe src="/inner"></iframe>' },
    '/inner': { type: 'text/html', body: '<!doctype html><title>inner</title><p>inner</p>' },
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  });
  crossSite = server.origin.replace('127.0.0.1', 'localhost');
});
afterAll(() => server?.close());

function evidence(result: Awaited<ReturnType<typeof call>>): EvidenceRecord<WebPageInspection> {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<WebPageInspection> }).record;
}

interface Listed {
  targets: Array<{ id: string; type: string; url: string; title: string }>;
}

/** Opens `url` in a new tab of `endpoint` and waits for its load (all its frames too); answers its id and the targets then. */
async function openTab(endpoint: string, url: string): Promise<{ id: string; listed: Listed }> {
  const created = await fetch(`${endpoint}/json/new?${encodeURIComponent(url)}`, { method: 'PUT' });
  const tab = (await created.json()) as { id: string };
  let listed: Listed = { targets: [] };
  for (let i = 0; i < 400; i++) {
    listed = evidence(await call(listBrowserTargetsTool, { endpoint })).normalized_result as unknown as Listed;
    if (listed.targets.find((t) => t.id === tab.id)?.title === 'loaded') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { id: tab.id, listed };
}

describe('inspect_web_page and out-of-process iframes', () => {
  it('should list a cross-site frame the browser runs in another process and say how many frames it did not read', async () => {
    const result = await call(inspectWebPageTool, { url: `${server.origin}/isolated` });
    const record = evidence(result);
    const { frames } = record.normalized_result.document;
    const main = frames.find((f) => f.url === `${server.origin}/isolated`)!;
    expect(frames).toEqual([
      { id: main.id, parent_id: null, url: `${server.origin}/isolated`, origin: server.origin },
      { id: expect.any(String), parent_id: main.id, url: `${crossSite}/frame`, origin: crossSite },
    ]);
    // The cross-site frame and the frame inside it.
    const left = record.limitations.filter((l) => l.kind === 'out-of-process-frames');
    expect(left).toEqual([expect.objectContaining({ message: expect.stringMatching(/^2 frame\(s\) run in other/) })]);
    expect(left[0]!.message).toContain(`${crossSite}/frame`);
    expect(record.coverage).toEqual({ status: 'partial', reasons: ['out-of-process-frames'] });
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should count the same frames on a tab of a browser that runs them out of process, as its targets show', async () => {
    const shared = await startSharedBrowser();
    try {
      const tab = await openTab(shared.endpoint, `${server.origin}/isolated`);
      // The browser itself lists the cross-site frame as a target of its own: it is out of process.
      expect(tab.listed.targets).toContainEqual(expect.objectContaining({ type: 'iframe', url: `${crossSite}/frame` }));
      const record = evidence(await call(inspectWebPageTool, { endpoint: shared.endpoint, target_id: tab.id }));
      expect(record.normalized_result.document.frames.map((f) => f.url)).toEqual([
        `${server.origin}/isolated`,
        `${crossSite}/frame`,
      ]);
      expect(record.limitations.filter((l) => l.kind === 'out-of-process-frames')).toEqual([
        expect.objectContaining({ message: expect.stringMatching(/^2 frame\(s\)/) }),
      ]);
    } finally {
      await shared.supervisor.closeAll();
    }
  }, 120_000);

  it('should read every frame, with no such limitation, when the browser keeps the cross-site frame in the page process', async () => {
    const shared = await startSharedBrowser((flags) => [...flags, '--disable-site-isolation-trials']);
    try {
      const tab = await openTab(shared.endpoint, `${server.origin}/isolated`);
      expect(tab.listed.targets.filter((t) => t.type === 'iframe')).toEqual([]);
      const record = evidence(await call(inspectWebPageTool, { endpoint: shared.endpoint, target_id: tab.id }));
      expect(record.normalized_result.document.frames.map((f) => f.url)).toEqual([
        `${server.origin}/isolated`,
        `${crossSite}/frame`,
        `${crossSite}/inner`,
      ]);
      expect(record.limitations.map((l) => l.kind)).not.toContain('out-of-process-frames');
    } finally {
      await shared.supervisor.closeAll();
    }
  }, 120_000);
});

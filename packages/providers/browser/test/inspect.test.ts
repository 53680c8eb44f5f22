import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { inspectWebPageTool, listBrowserTargetsTool } from '@rea/provider-browser';
import type { WebPageInspection } from '@rea/provider-browser';
import type { ProcessSupervisor } from '@rea/provider-kit';
import { call, ownedBrowsersGone, servePages, startSharedBrowser } from './support.js';

const APP =
  "console.log('app ready');\nlocalStorage.setItem('token', 'secret-value');\n//# sourceMappingURL=app.js.map\n";
const MAP = JSON.stringify({ version: 3, sources: ['app.ts'], names: [], mappings: 'AAAA' });
const LIB = 'window.lib = 1;\n//# sourceMappingURL=missing.js.map\n';
const INDEX = `<!doctype html><html><head><title>Notes</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self' 'unsafe-inline'">
<style>body { color: red }</style><script src="/app.js"></script><script src="/lib.js"></script>
<script>console.warn('inline', 42); alert('hello');</script></head>
<body><div id="root" class="shell main"><p>text</p></div><iframe src="/frame.html"></iframe></body></html>`;

// Registers a service worker scoped to /sw/ (so it controls no other page of the shared browser).
const SW_PAGE = `<!doctype html><title>registering</title><script>
navigator.serviceWorker.register('/sw/worker.js', { scope: '/sw/' })
  .then(() => navigator.serviceWorker.ready).then(() => { document.title = 'ready'; });
</script>`;

// /held.html answers only when released: a tab sent there stays between documents until then.
const held = {
  requested: false,
  release: (): void => undefined,
};

let server: Awaited<ReturnType<typeof servePages>>;
let shared: { endpoint: string; supervisor: ProcessSupervisor };

beforeAll(async () => {
  server = await servePages({
    '/': {
      type: 'text/html',
      body: INDEX,
      headers: { 'content-security-policy': "script-src 'self' 'unsafe-inline'" },
    },
    '/app.js': { type: 'text/javascript', body: APP },
    '/app.js.map': { type: 'application/json', body: MAP },
    '/lib.js': { type: 'text/javascript', body: LIB },
    '/eval.html': {
      type: 'text/html',
      body: "<!doctype html><title>eval</title><script>eval('window.x = 1');</script>",
    },
    '/frame.html': { type: 'text/html', body: '<!doctype html><title>inner</title><p>frame</p>' },
    '/held.html': (_req, res) => {
      held.requested = true;
      held.release = () =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>held</title>');
    },
    '/sw/': { type: 'text/html', body: SW_PAGE },
    '/sw/worker.js': { type: 'text/javascript', body: "self.addEventListener('install', () => self.skipWaiting());" },
  });
  shared = await startSharedBrowser();
}, 60_000);

afterAll(async () => {
  await shared?.supervisor.closeAll();
  await server?.close();
});

function evidence(result: Awaited<ReturnType<typeof call>>): EvidenceRecord<WebPageInspection> {
  if (result.error) throw result.error;
  if (result.outcome?.kind !== 'evidence') throw new Error('expected Evidence');
  return result.outcome.record as EvidenceRecord<WebPageInspection>;
}

describe('inspect_web_page with endpoint "owned"', () => {
  it('should report frames, scripts with hashes and source maps, resources, console, dialog, storage keys and CSP, then remove the browser', async () => {
    const result = await call(inspectWebPageTool, { endpoint: 'owned', url: `${server.origin}/` });
    const record = evidence(result);
    const page = record.normalized_result;
    expect(page.document).toMatchObject({ url: `${server.origin}/`, title: 'Notes' });
    expect(page.document.frames.map((f) => f.url)).toEqual([`${server.origin}/`, `${server.origin}/frame.html`]);
    const app = page.scripts.find((s) => s.url === `${server.origin}/app.js`);
    expect(app).toEqual({
      url: `${server.origin}/app.js`,
      inline: false,
      sha256: createHash('sha256').update(APP).digest('hex'),
      size: APP.length,
      source_map_url: `${server.origin}/app.js.map`,
      source_map_resolves: true,
    });
    expect(page.scripts.find((s) => s.url.endsWith('/lib.js'))).toMatchObject({ source_map_resolves: false });
    expect(page.scripts.some((s) => s.inline && s.url === `${server.origin}/`)).toBe(true);
    expect(page.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          url: `${server.origin}/app.js`,
          type: 'Script',
          status: 200,
          mime: 'text/javascript',
        }),
        expect.objectContaining({ url: `${server.origin}/frame.html`, type: 'Document', status: 200 }),
      ]),
    );
    expect(page.console.messages).toEqual(
      expect.arrayContaining([
        { level: 'log', source: 'console-api', text: 'app ready' },
        { level: 'warning', source: 'console-api', text: 'inline 42' },
      ]),
    );
    expect(page.dialogs).toEqual([{ type: 'alert', message: 'hello' }]);
    expect(page.storage.local_storage).toEqual([{ key: 'token', value: null }]);
    expect(JSON.stringify(page)).not.toContain('secret-value');
    expect(page.security.csp).toEqual([
      { source: 'header', policy: "script-src 'self' 'unsafe-inline'" },
      { source: 'meta', policy: "default-src 'self' 'unsafe-inline'" },
    ]);
    expect(page.stylesheets).toEqual([{ url: null, inline: true, size: 'body { color: red }'.length }]);
    expect(page.dom.outline).toEqual(
      expect.arrayContaining([{ depth: 2, tag: 'div', id: 'root', classes: ['shell', 'main'] }]),
    );
    // REA's own reads run in the page too, but they are not the page's scripts.
    expect(record.limitations.map((l) => l.kind)).not.toContain('dynamic-scripts');
    expect(record.provider.id).toBe('browser');
    expect(result.dirs).toHaveLength(1);
    expect(result.dirs[0]).toMatch(/rea-chrome-/);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 90_000);

  it("should count the page's scripts without a URL (eval) as a limitation, and none of REA's own", async () => {
    const record = evidence(await call(inspectWebPageTool, { endpoint: 'owned', url: `${server.origin}/eval.html` }));
    const dynamic = record.limitations.filter((l) => l.kind === 'dynamic-scripts');
    expect(dynamic).toHaveLength(1);
    expect(dynamic[0]!.message).toMatch(/^1 scripts without a URL/);
    expect(JSON.stringify(record.normalized_result)).not.toContain('rea-internal:');
  }, 90_000);

  it('should report storage values only when asked', async () => {
    const page = evidence(
      await call(inspectWebPageTool, { endpoint: 'owned', url: `${server.origin}/`, storage_values: true }),
    ).normalized_result;
    expect(page.storage.local_storage).toEqual([{ key: 'token', value: 'secret-value' }]);
  }, 90_000);
});

describe('a loopback endpoint', () => {
  it('should list the targets and inspect one without reloading it', async () => {
    const { endpoint } = shared;
    const created = await fetch(`${endpoint}/json/new?${encodeURIComponent(`${server.origin}/frame.html`)}`, {
      method: 'PUT',
    });
    const tab = (await created.json()) as { id: string };
    for (let i = 0; i < 200; i++) {
      const listed = evidence(await call(listBrowserTargetsTool, { endpoint }));
      const target = (
        listed.normalized_result as unknown as { targets: Array<{ id: string; title: string }> }
      ).targets.find((t) => t.id === tab.id);
      // The listing names a tab's URL as soon as it starts navigating; the title comes with the document.
      if (target?.title === 'inner') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const page = evidence(await call(inspectWebPageTool, { endpoint, target_id: tab.id })).normalized_result;
    expect(page.target).toEqual({ id: tab.id, type: 'page' });
    expect(page.document).toMatchObject({ url: `${server.origin}/frame.html`, title: 'inner' });
    expect(page.resources.map((r) => r.url)).toContain(`${server.origin}/frame.html`);
  }, 90_000);

  it('should say so when the target is still navigating to the URL it lists', async () => {
    const { endpoint } = shared;
    const created = await fetch(`${endpoint}/json/new?${encodeURIComponent(`${server.origin}/held.html`)}`, {
      method: 'PUT',
    });
    const tab = (await created.json()) as { id: string };
    try {
      for (let i = 0; i < 200 && !held.requested; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(held.requested).toBe(true);
      const record = evidence(await call(inspectWebPageTool, { endpoint, target_id: tab.id }));
      expect(record.normalized_result.document.url).toBe('about:blank');
      const pending = record.limitations.filter((l) => l.kind === 'load-incomplete');
      expect(pending).toHaveLength(1);
      expect(pending[0]!.message).toContain(`navigating to ${server.origin}/held.html`);
    } finally {
      held.release();
      await fetch(`${endpoint}/json/close/${tab.id}`);
    }
  }, 90_000);

  it('should report the service worker a tab registered, with its script URL, scope and state', async () => {
    const { endpoint } = shared;
    const created = await fetch(`${endpoint}/json/new?${encodeURIComponent(`${server.origin}/sw/`)}`, {
      method: 'PUT',
    });
    const tab = (await created.json()) as { id: string };
    // The page titles itself "ready" once its worker is active.
    for (let i = 0; i < 400; i++) {
      const listed = evidence(await call(listBrowserTargetsTool, { endpoint }));
      const targets = (listed.normalized_result as unknown as { targets: Array<{ id: string; title: string }> })
        .targets;
      if (targets.find((t) => t.id === tab.id)?.title === 'ready') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const page = evidence(await call(inspectWebPageTool, { endpoint, target_id: tab.id })).normalized_result;
    expect(page.document.title).toBe('ready');
    expect(page.service_workers).toEqual([
      {
        id: expect.stringMatching(/^[0-9A-F]{32}$/),
        url: `${server.origin}/sw/worker.js`,
        scope: `${server.origin}/sw/`,
        status: 'activated',
        running_status: 'running',
      },
    ]);
    const listed = evidence(await call(listBrowserTargetsTool, { endpoint }));
    const workers = (listed.normalized_result as unknown as { targets: Array<{ id: string; type: string }> }).targets;
    expect(workers).toContainEqual(
      expect.objectContaining({ id: page.service_workers[0]!.id, type: 'service_worker' }),
    );
  }, 90_000);

  it('should refuse an unknown target id with not_found naming it', async () => {
    const { error } = await call(inspectWebPageTool, { endpoint: shared.endpoint, target_id: 'NO-SUCH-TARGET' });
    expect(isReaError(error) && error.code).toBe('not_found');
    expect((error as Error).message).toContain('NO-SUCH-TARGET');
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { compareWebCapturesTool, inspectWebPageTool } from '@rea/provider-browser';
import type { ScenarioCapture, WebCaptureComparison, WebPageInspection } from '@rea/provider-browser';
import { call, servePages } from './support.js';

let version = 1;
let server: Awaited<ReturnType<typeof servePages>>;
const app = () => `window.version = ${version};`;

beforeAll(async () => {
  server = await servePages({
    '/': (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<title>v</title><script src="/app.js"></script>${version === 1 ? '<script src="/old.js"></script>' : '<script src="/new.js"></script>'}`,
        ),
    '/app.js': (_req, res) => res.writeHead(200, { 'content-type': 'text/javascript' }).end(app()),
    '/old.js': { type: 'text/javascript', body: 'window.old = 1;' },
    '/new.js': { type: 'text/javascript', body: 'window.fresh = 1;' },
    '/two': (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<script>var first = ${version};</script><script>var second = 2;</script>`),
  });
});
afterAll(() => server?.close());

function value<T>(result: Awaited<ReturnType<typeof call>>): T {
  if (result.error) throw result.error;
  return (result.outcome as unknown as { record: EvidenceRecord<T> }).record.normalized_result;
}

function scenario(
  events: Array<[ScenarioCapture['events'][number]['kind'], string, number | null]>,
  outcome: 'ok' | 'failed',
): ScenarioCapture {
  return {
    endpoint: 'owned',
    target: { id: 'T', url: 'http://127.0.0.1:1/' },
    actions: [{ index: 0, action: 'click', outcome, detail: '', first_event: 0, last_event: events.length - 1 }],
    events: events.map(([kind, url, status], seq) => ({
      seq,
      action: 0,
      kind,
      url,
      status,
      detail: kind === 'response' ? 'application/json' : 'GET',
    })),
    events_total: events.length,
    screenshots: [],
    dom_changes: [],
    downloads: [],
  };
}

describe('compare_web_captures', () => {
  it('should report the scripts that changed, appeared and went away between two versions of a page', async () => {
    const before = value<WebPageInspection>(await call(inspectWebPageTool, { url: `${server.origin}/` }));
    version = 2;
    const after = value<WebPageInspection>(await call(inspectWebPageTool, { url: `${server.origin}/` }));
    const diff = value<WebCaptureComparison>(
      await call(compareWebCapturesTool, {
        before: { inspection: before },
        after: { inspection: after, webmcp: null },
      }),
    );
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(diff.family).toBe('passive');
    expect(diff.scripts).toEqual({
      added: [`${server.origin}/new.js`],
      removed: [`${server.origin}/old.js`],
      changed: [
        { key: `${server.origin}/app.js`, before: sha('window.version = 1;'), after: sha('window.version = 2;') },
      ],
    });
    expect(diff.resources.added).toEqual([`${server.origin}/new.js`]);
    expect(diff.unchanged).toBe(false);
  }, 120_000);

  it('should report a change in one of two inline scripts that share the page URL', async () => {
    version = 1;
    const before = value<WebPageInspection>(await call(inspectWebPageTool, { url: `${server.origin}/two` }));
    version = 2;
    const after = value<WebPageInspection>(await call(inspectWebPageTool, { url: `${server.origin}/two` }));
    const diff = value<WebCaptureComparison>(
      await call(compareWebCapturesTool, { before: { inspection: before }, after: { inspection: after } }),
    );
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(diff.scripts).toEqual({
      added: [],
      removed: [],
      changed: [{ key: `${server.origin}/two #1`, before: sha('var first = 1;'), after: sha('var first = 2;') }],
    });
    expect(diff.unchanged).toBe(false);
  }, 120_000);

  it('should compare WebMCP tools by name and schema', async () => {
    const inspection = (() => {
      const page = {
        endpoint: 'owned',
        target: { id: 'T', type: 'page' },
        document: { url: 'http://127.0.0.1:1/', title: '', frames: [] },
      };
      return {
        ...page,
        scripts: [],
        stylesheets: [],
        resources: [],
        console: { total: 0, messages: [] },
        dialogs: [],
        storage: { local_storage: [], session_storage: [], cookies: [] },
        service_workers: [],
        security: { scheme: 'http', secure_context: true, csp: [] },
        dom: { elements: 1, outline: [], truncated: false },
      };
    })();
    const tool = (name: string, schema: object, frame = 'http://127.0.0.1:1/') => ({
      name,
      description: 'd',
      input_schema: schema,
      source: 'imperative',
      observed_by: ['instrumentation'],
      frame,
      origin: 'http://127.0.0.1:1',
    });
    const webmcp = (tools: object[]) => ({
      endpoint: 'owned',
      target: { id: 'T', url: 'http://127.0.0.1:1/' },
      instrumented: true,
      browser_surface: false,
      tools,
    });
    const diff = value<WebCaptureComparison>(
      await call(compareWebCapturesTool, {
        before: { inspection, webmcp: webmcp([tool('search', { type: 'object' }), tool('cart', {})]) },
        after: { inspection, webmcp: webmcp([tool('search', { type: 'object', required: ['q'] }), tool('pay', {})]) },
      }),
    );
    expect(diff.webmcp_tools.added).toEqual(['pay']);
    expect(diff.webmcp_tools.removed).toEqual(['cart']);
    expect(diff.webmcp_tools.changed.map((c) => c.key)).toEqual(['search']);
    const framed = value<WebCaptureComparison>(
      await call(compareWebCapturesTool, {
        before: { inspection, webmcp: webmcp([tool('search', {}), tool('search', {}, 'http://127.0.0.1:1/frame')]) },
        after: {
          inspection,
          webmcp: webmcp([tool('search', { type: 'object' }), tool('search', {}, 'http://127.0.0.1:1/frame')]),
        },
      }),
    );
    expect(framed.webmcp_tools.changed.map((c) => c.key)).toEqual(['search (imperative http://127.0.0.1:1/)']);
    expect(framed.unchanged).toBe(false);
  });

  it('should report a change in one of two responses from the same URL', async () => {
    const before = scenario(
      [
        ['response', 'http://127.0.0.1:1/api', 200],
        ['response', 'http://127.0.0.1:1/api', 200],
      ],
      'ok',
    );
    const after = scenario(
      [
        ['response', 'http://127.0.0.1:1/api', 500],
        ['response', 'http://127.0.0.1:1/api', 200],
      ],
      'ok',
    );
    const diff = value<WebCaptureComparison>(
      await call(compareWebCapturesTool, { before_scenario: before, after_scenario: after }),
    );
    expect(diff.resources.changed).toEqual([
      { key: 'http://127.0.0.1:1/api #1', before: '200 application/json', after: '500 application/json' },
    ]);
  });

  it('should compare scenario events after normalization, and report changed action outcomes', async () => {
    const before = scenario(
      [
        ['request', 'http://127.0.0.1:1/api?session=ab12', null],
        ['response', 'http://127.0.0.1:1/api?session=ab12', 200],
      ],
      'ok',
    );
    const after = scenario(
      [
        ['request', 'http://127.0.0.1:1/api?session=ff00', null],
        ['response', 'http://127.0.0.1:1/api?session=ff00', 500],
      ],
      'failed',
    );
    const rules = [{ pattern: 'session=[0-9a-f]+', replacement: 'session=*' }];
    const diff = value<WebCaptureComparison>(
      await call(compareWebCapturesTool, { before_scenario: before, after_scenario: after, normalization: { rules } }),
    );
    expect(diff.events).toEqual({
      added: ['response http://127.0.0.1:1/api?session=* 500 application/json'],
      removed: ['response http://127.0.0.1:1/api?session=* 200 application/json'],
      actions_changed: [{ key: '0 click', before: 'ok', after: 'failed' }],
    });
    expect(diff.resources.changed).toEqual([
      { key: 'http://127.0.0.1:1/api?session=*', before: '200 application/json', after: '500 application/json' },
    ]);
    const same = value<WebCaptureComparison>(
      await call(compareWebCapturesTool, { before_scenario: before, after_scenario: before }),
    );
    expect(same.unchanged).toBe(true);
  });

  it('should reject mixed families and structurally incomplete captures by validation, and inconsistent ones by domain checks', async () => {
    const capture = scenario([['request', 'http://127.0.0.1:1/', null]], 'ok');
    const mixed = await call(compareWebCapturesTool, { before_scenario: capture, after: { inspection: capture } });
    expect(isReaError(mixed.error) && mixed.error.code).toBe('invalid_request');
    const incomplete = await call(compareWebCapturesTool, {
      before_scenario: { ...capture, events: undefined },
      after_scenario: capture,
    });
    expect(isReaError(incomplete.error) && incomplete.error.code).toBe('invalid_request');
    const inconsistent = await call(compareWebCapturesTool, {
      before_scenario: { ...capture, events_total: 0 },
      after_scenario: capture,
    });
    expect(inconsistent.error).toMatchObject({
      code: 'invalid_request',
      details: { reason: 'inconsistent-capture', field: 'before_scenario' },
    });
  });
});

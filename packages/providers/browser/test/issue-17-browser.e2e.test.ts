import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { processAlive, withTempDir } from '@rea/test-helpers';
import { run } from '../../../cli/test/run.js';
import { REA_BIN as bin, connectReaMcp, processesUsing, servePages } from './support.js';

const PAGE =
  '<!doctype html><title>e2e page</title><form toolname="lookup" tooldescription="Looks up a word."><input name="word"></form><script src="/app.js"></script>';

let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: PAGE },
    '/app.js': { type: 'text/javascript', body: 'var app = 1;' },
  });
});
afterAll(() => server?.close());

/** True when nothing of an owned browser is left under `tmp`: no profile directory, no process naming it. */
function nothingLeft(tmp: string): boolean {
  return (
    readdirSync(tmp).filter((name) => name.startsWith('rea-chrome-')).length === 0 && processesUsing(tmp).length === 0
  );
}

describe('the browser tools through the built rea', () => {
  it('should inspect a page with `rea inspect-web-page --url` in a browser it owns, and remove it', async () => {
    await withTempDir(async (tmp) => {
      const result = await run(bin, ['inspect-web-page', '--url', `${server.origin}/`, '--format', 'json'], {
        env: { TMPDIR: tmp },
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const record = JSON.parse(result.stdout) as {
        operation: string;
        normalized_result: { document: { title: string } };
      };
      expect(record.operation).toBe('inspect_web_page');
      expect(record.normalized_result.document.title).toBe('e2e page');
      expect(nothingLeft(tmp)).toBe(true);
    });
  }, 120_000);

  it('should filter by an origin given to `--origins` with the root path', async () => {
    await withTempDir(async (tmp) => {
      const result = await run(
        bin,
        ['inspect-web-page', '--url', `${server.origin}/`, '--origins', `${server.origin}/`, '--format', 'json'],
        { env: { TMPDIR: tmp } },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const record = JSON.parse(result.stdout) as {
        normalized_result: { document: { frames: Array<{ url: string }> }; scripts: Array<{ url: string }> };
      };
      expect(record.normalized_result.document.frames.map((f) => f.url)).toEqual([`${server.origin}/`]);
      expect(record.normalized_result.scripts.map((s) => s.url)).toEqual([`${server.origin}/app.js`]);
      expect(nothingLeft(tmp)).toBe(true);
    });
  }, 120_000);

  it('should discover WebMCP tools over MCP, refuse a non-loopback endpoint, and leave no browser', async () => {
    await withTempDir(async (tmp) => {
      const { client, serverPid } = await connectReaMcp(tmp, 'rea-browser-e2e');
      try {
        const found = await client.callTool({ name: 'discover_webmcp_tools', arguments: { url: `${server.origin}/` } });
        expect(found.isError).toBeFalsy();
        expect(
          (found.structuredContent as { normalized_result: { tools: unknown[] } }).normalized_result.tools,
        ).toEqual([
          expect.objectContaining({ name: 'lookup', description: 'Looks up a word.', source: 'declarative' }),
        ]);
        const refused = await client.callTool({
          name: 'list_browser_targets',
          arguments: { endpoint: 'http://192.0.2.1:9222' },
        });
        expect(refused.isError).toBe(true);
        const text = (refused.content as Array<{ text: string }>)[0]!.text;
        expect(JSON.parse(text)).toMatchObject({ error: { code: 'access_denied', details: { host: '192.0.2.1' } } });
      } finally {
        await client.close();
      }
      // The owned browser lives for the session: it goes when the server ends the session and exits.
      for (let i = 0; i < 400 && serverPid !== null && processAlive(serverPid); i += 1)
        await new Promise((r) => setTimeout(r, 25));
      // Its processes were killed before the server exited; the kernel ends each one right after.
      for (let i = 0; i < 400 && !nothingLeft(tmp); i += 1) await new Promise((r) => setTimeout(r, 25));
      expect(nothingLeft(tmp)).toBe(true);
    });
  }, 120_000);
});

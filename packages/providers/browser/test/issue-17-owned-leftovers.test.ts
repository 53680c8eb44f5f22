import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectWebPageTool } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
let tmp: string;
const saved = process.env['TMPDIR'];

beforeAll(async () => {
  server = await servePages({ '/': { type: 'text/html', body: '<!doctype html><title>t</title>' } });
  tmp = mkdtempSync(join(tmpdir(), 'rea-leftovers-'));
});
afterAll(async () => {
  if (saved === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = saved;
  rmSync(tmp, { recursive: true, force: true });
  await server?.close();
});

describe('owned browser', () => {
  it('should leave nothing in the temporary directory once the call ends (no org.chromium.Chromium.* directory)', async () => {
    process.env['TMPDIR'] = tmp;
    const result = await call(inspectWebPageTool, { url: `${server.origin}/` });
    if (result.error) throw result.error;
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);
});

// Every download of a scenario is listed, counted for the action that caused it: a url that is itself
// a download, one that passes the budget (cancelled, with the size that passed it), and one refused with
// max_download_bytes 0, each begun by a click whose download the browser announces after the click ends.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool, inspectWebPageTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

const FILE = 'id,total\n1,42\n';
// The name a page tool's download would be saved under, were it saved where the browser saves by default.
const STRAY = `rea-test-${process.pid}-${Date.now()}.csv`;
const BIG = 2 * 1024 * 1024;
const PAGE = `<!doctype html><title>files</title><a id="file" href="/file.csv">file</a> <a id="big" href="/big.bin">big</a>`;

let server: Awaited<ReturnType<typeof servePages>>;
const kept: string[] = [];
beforeAll(async () => {
  const attachment = (name: string, length: number) => ({
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${name}"`,
    'content-length': String(length),
  });
  server = await servePages({
    '/': { type: 'text/html', body: PAGE },
    // Answered a little late, so the browser announces the download after the click that asked for it.
    '/file.csv': (_req, res) =>
      void setTimeout(() => res.writeHead(200, attachment('file.csv', FILE.length)).end(FILE), 300),
    '/stray.csv': {
      type: 'text/csv',
      body: FILE,
      headers: { 'content-disposition': `attachment; filename="${STRAY}"` },
    },
    '/big.bin': (_req, res) => {
      res.on('error', () => undefined);
      setTimeout(() => res.writeHead(200, attachment('big.bin', BIG)).end(Buffer.alloc(BIG, 7)), 300);
    },
  });
});
afterAll(async () => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

function capture(result: Awaited<ReturnType<typeof call>>) {
  if (result.error) throw result.error;
  const record = (result.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record;
  kept.push(...record.normalized_result.downloads.flatMap((d) => (d.path ? [dirname(d.path)] : [])));
  return record;
}

describe('capture_browser_scenario downloads', () => {
  it('should record a url that is itself a download as a download made before the first action', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/file.csv`,
      actions: [{ action: 'wait_for_downloads' }],
    });
    const done = capture(result).normalized_result;
    expect(done.actions.map((a) => a.outcome)).toEqual(['ok']);
    expect(done.downloads).toEqual([
      expect.objectContaining({
        action: null,
        url: `${server.origin}/file.csv`,
        suggested_filename: 'file.csv',
        outcome: 'kept',
        sha256: createHash('sha256').update(FILE).digest('hex'),
        size: FILE.length,
      }),
    ]);
    expect(readFileSync(done.downloads[0]!.path!, 'utf8')).toBe(FILE);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);

  it('should list a download that passes max_download_bytes, for the click that caused it, with the size that passed it', async () => {
    const record = capture(
      await call(captureBrowserScenarioTool, {
        url: `${server.origin}/`,
        max_download_bytes: 1024 * 1024,
        actions: [
          { action: 'click', selector: '#big' },
          { action: 'wait', ms: 3000 },
        ],
      }),
    );
    const done = record.normalized_result;
    expect(done.downloads).toEqual([
      expect.objectContaining({ action: 0, suggested_filename: 'big.bin', outcome: 'over-budget', path: null }),
    ]);
    expect(done.events).toContainEqual(
      expect.objectContaining({
        kind: 'download',
        detail: `over-budget: big.bin (${BIG} bytes, past the ${1024 * 1024} bytes left of ${1024 * 1024}: cancelled)`,
      }),
    );
    expect(record.limitations).toContainEqual(expect.objectContaining({ kind: 'budget-reached', scope: 'downloads' }));
  }, 120_000);

  it('should count a download refused with max_download_bytes 0 for the click that caused it', async () => {
    const done = capture(
      await call(captureBrowserScenarioTool, {
        url: `${server.origin}/`,
        max_download_bytes: 0,
        actions: [
          { action: 'click', selector: '#file' },
          { action: 'wait', ms: 3000 },
        ],
      }),
    ).normalized_result;
    expect(done.downloads).toEqual([
      expect.objectContaining({ action: 0, suggested_filename: 'file.csv', outcome: 'refused', path: null }),
    ]);
    expect(done.events).toContainEqual(
      expect.objectContaining({ kind: 'download', detail: 'refused: file.csv (max_download_bytes is 0)' }),
    );
  }, 120_000);

  it('should refuse a url that is a download in a tool that reads pages, saying so, and leave no file outside its profile', async () => {
    const result = await call(inspectWebPageTool, { url: `${server.origin}/stray.csv` });
    expect(result.error).toMatchObject({
      code: 'unsupported_target',
      details: { reason: 'download', url: `${server.origin}/stray.csv` },
    });
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
    expect(existsSync(join(homedir(), 'Downloads', STRAY))).toBe(false);
  }, 120_000);
});

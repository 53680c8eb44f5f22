// An owned browser writes nothing under the user's home. Chromium writes there whatever --user-data-dir
// does not cover: the temporary file of each download, made in ~/Downloads when that folder exists (and
// moved to where the download goes), its crash-report settings under ~/.config and dconf's cache under
// ~/.cache. The test gives this process a home of its own, with a Downloads folder, watches that folder
// (inotify, through fs.watch) while a scenario downloads and a page tool meets a download, and checks
// the home is as it was.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool, inspectWebPageTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

const FILE = 'id,total\n1,42\n';
const PAGE = '<!doctype html><title>files</title><a id="file" href="/file.csv">file</a>';

let server: Awaited<ReturnType<typeof servePages>>;
let home: string;
let watcher: FSWatcher;
const seen: string[] = [];
const kept: string[] = [];
const userHome = process.env['HOME'];

beforeAll(async () => {
  const attachment = { 'content-disposition': 'attachment; filename="file.csv"' };
  server = await servePages({
    '/': { type: 'text/html', body: PAGE },
    '/file.csv': { type: 'text/csv', body: FILE, headers: attachment },
  });
  home = mkdtempSync(join(tmpdir(), 'rea-test-home-'));
  mkdirSync(join(home, 'Downloads'));
  watcher = watch(join(home, 'Downloads'), (event, name) => seen.push(`${event} ${name}`));
  process.env['HOME'] = home;
});
afterAll(async () => {
  watcher?.close();
  process.env['HOME'] = userHome;
  for (const dir of [...kept, home]) if (dir) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

describe('an owned browser and the user home', () => {
  it('should download and meet downloads without writing under the home', async () => {
    const scenario = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      actions: [{ action: 'click', selector: '#file' }, { action: 'wait_for_downloads' }],
    });
    if (scenario.error) throw scenario.error;
    const record = (scenario.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record;
    const downloads = record.normalized_result.downloads;
    kept.push(...downloads.flatMap((d) => (d.path ? [dirname(d.path)] : [])));
    // The download was made: the scenario saw it whole.
    expect(downloads).toEqual([expect.objectContaining({ suggested_filename: 'file.csv', size: FILE.length })]);
    const page = await call(inspectWebPageTool, { url: `${server.origin}/file.csv` });
    expect(page.error).toMatchObject({ code: 'unsupported_target', details: { reason: 'download' } });
    expect(ownedBrowsersGone([...scenario.dirs, ...page.dirs])).toBe(true);
    // Let the watcher deliver what it saw.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toEqual([]);
    expect(readdirSync(home).sort()).toEqual(['Downloads']);
    expect(readdirSync(join(home, 'Downloads'))).toEqual([]);
  }, 120_000);
});

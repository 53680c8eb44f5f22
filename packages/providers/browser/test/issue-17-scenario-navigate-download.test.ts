// A navigate action whose response is an attachment becomes a download: the action is done (the
// download is recorded) and the scenario goes on with its next actions.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, servePages } from './support.js';

const FILE = 'a file that is downloaded, not shown\n';

let server: Awaited<ReturnType<typeof servePages>>;
const kept: string[] = [];
beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: '<!doctype html><title>start</title><p id="p">start</p>' },
    '/file.bin': {
      type: 'application/octet-stream',
      body: FILE,
      headers: { 'content-disposition': 'attachment; filename="file.bin"' },
    },
  });
});
afterAll(async () => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

describe('capture_browser_scenario navigating to a download', () => {
  it('should count the navigation as done, keep the download, and run the actions after it', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      actions: [
        { action: 'navigate', url: `${server.origin}/file.bin` },
        { action: 'wait_for_downloads' },
        { action: 'wait_for_selector', selector: '#p' },
      ],
    });
    const partial = isReaError(result.error)
      ? (result.error.details['partial_observation'] as ScenarioCapture | undefined)
      : undefined;
    const capture =
      result.outcome?.kind === 'evidence'
        ? (result.outcome.record as EvidenceRecord<ScenarioCapture>).normalized_result
        : partial;
    kept.push(...(capture?.downloads ?? []).flatMap((d) => (d.path ? [dirname(d.path)] : [])));
    expect(result.error).toBeNull();
    expect(capture!.actions.map((a) => a.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(capture!.actions[0]!.detail).toContain('download');
    expect(capture!.downloads).toEqual([
      expect.objectContaining({
        action: 0,
        url: `${server.origin}/file.bin`,
        suggested_filename: 'file.bin',
        outcome: 'kept',
        sha256: createHash('sha256').update(FILE).digest('hex'),
        size: FILE.length,
      }),
    ]);
  }, 120_000);
});

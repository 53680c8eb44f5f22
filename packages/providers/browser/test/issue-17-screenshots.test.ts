import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PNG } from 'pngjs';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { captureWebScreenshotTool, compareWebScreenshotsTool } from '@rea/provider-browser';
import type { ScreenshotComparison, WebScreenshot } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages, startSharedBrowser } from './support.js';

// Each capture starts a headless Chromium of its own; on a busy machine that takes a while.
jest.setTimeout(180_000);

// Two versions of one page: only the box #b changes colour, at a known place (200,100) sized 80x40.
const page = (colour: string) =>
  `<!doctype html><style>body{margin:0;background:#fff}div{position:absolute}</style>
<div id="a" style="left:0;top:0;width:100px;height:50px;background:#00f"></div>
<div id="b" style="left:200px;top:100px;width:80px;height:40px;background:${colour}"></div>`;

let server: Awaited<ReturnType<typeof servePages>>;
let work: string;
const owned: string[] = [];

beforeAll(async () => {
  server = await servePages({
    '/v1': { type: 'text/html', body: page('#00aa00') },
    '/v2': { type: 'text/html', body: page('#cc0000') },
  });
  work = mkdtempSync(join(tmpdir(), 'rea-screenshots-test-'));
});

afterAll(async () => {
  for (const dir of [work, ...owned]) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

async function shoot(path: string, selector?: string): Promise<WebScreenshot> {
  const result = await call(captureWebScreenshotTool, {
    url: `${server.origin}${path}`,
    ...(selector ? { selector } : {}),
  });
  expect(result.error).toBeNull();
  const record = (result.outcome as unknown as { record: EvidenceRecord<WebScreenshot> }).record;
  owned.push(dirname(record.normalized_result.path));
  expect(ownedBrowsersGone(result.dirs)).toBe(true);
  return record.normalized_result;
}

async function compare(input: object): Promise<{ result: ScreenshotComparison | null; error: unknown }> {
  const { outcome, error } = await call(compareWebScreenshotsTool, input);
  const result = outcome ? (outcome as unknown as { record: EvidenceRecord<ScreenshotComparison> }).record : null;
  if (result && !('diff_path' in (input as Record<string, unknown>)))
    owned.push(dirname(result.normalized_result.diff_path));
  return { result: result?.normalized_result ?? null, error };
}

describe('capture_web_screenshot and compare_web_screenshots', () => {
  let v1: WebScreenshot;
  let v2: WebScreenshot;
  let b1: WebScreenshot;

  beforeAll(async () => {
    v1 = await shoot('/v1');
    v2 = await shoot('/v2');
    b1 = await shoot('/v1', '#b');
  });

  it('should find differences exactly where the page changed and nowhere else', async () => {
    const diffPath = join(work, 'v1-v2.png');
    const { result, error } = await compare({
      before: { path: v1.path },
      after: { path: v2.path },
      diff_path: diffPath,
    });
    expect(error).toBeNull();
    expect(result).toMatchObject({ differing_pixels: 80 * 40, identical: false, diff_path: diffPath });
    expect(result!.total_pixels).toBe(v1.width * v1.height);
    expect(result!.differing_ratio).toBeCloseTo((80 * 40) / (v1.width * v1.height), 10);
    // Every pure-red pixel of the diff image lies in #b's box, and the box is all red.
    const diff = PNG.sync.read(readFileSync(diffPath));
    expect([diff.width, diff.height]).toEqual([v1.width, v1.height]);
    let red = 0;
    for (let y = 0; y < diff.height; y++) {
      for (let x = 0; x < diff.width; x++) {
        const i = (y * diff.width + x) * 4;
        if (diff.data[i] === 255 && diff.data[i + 1] === 0 && diff.data[i + 2] === 0) {
          red++;
          expect(x >= 200 && x < 280 && y >= 100 && y < 140).toBe(true);
        }
      }
    }
    expect(red).toBe(80 * 40);
  });

  it('should find no differing pixels between two captures of the same page, and capture an element at its size', async () => {
    const again = await shoot('/v1');
    const { result, error } = await compare({ before: { path: v1.path }, after: { path: again.path } });
    expect(error).toBeNull();
    expect(result).toMatchObject({ differing_pixels: 0, differing_ratio: 0, identical: true });
    expect(PNG.sync.read(readFileSync(result!.diff_path)).width).toBe(v1.width);
    expect(b1).toMatchObject({ selector: '#b', width: 80, height: 40 });
    const b2 = await shoot('/v2', '#b');
    const boxes = await compare({ before: { path: b1.path }, after: { path: b2.path }, threshold: 0 });
    expect(boxes.result).toMatchObject({ total_pixels: 3200, differing_pixels: 3200, differing_ratio: 1 });
  });

  it('should refuse mismatched sizes, a corrupt PNG and a missing file with typed errors', async () => {
    const sizes = await compare({ before: { path: v1.path }, after: { path: b1.path } });
    expect(isReaError(sizes.error) && sizes.error.code).toBe('invalid_request');
    expect((sizes.error as { details: Record<string, unknown> }).details).toMatchObject({
      reason: 'dimensions-mismatch',
      after: { width: 80, height: 40 },
    });
    const corrupt = join(work, 'corrupt.png');
    writeFileSync(corrupt, readFileSync(v1.path).subarray(0, 200));
    const bad = await compare({ before: { path: corrupt }, after: { path: v1.path } });
    expect(isReaError(bad.error) && bad.error.code).toBe('unsupported_target');
    const missing = await compare({ before: { path: v1.path }, after: { path: join(work, 'absent.png') } });
    expect(isReaError(missing.error) && missing.error.code).toBe('not_found');
    const noDir = await compare({
      before: { path: v1.path },
      after: { path: v1.path },
      diff_path: join(work, 'no', 'd.png'),
    });
    expect(isReaError(noDir.error) && noDir.error.code).toBe('not_found');
  });

  it('should refuse a selector that matches nothing with not_found, leaving no browser behind', async () => {
    const result = await call(captureWebScreenshotTool, { url: `${server.origin}/v1`, selector: '#nothing' });
    expect(isReaError(result.error) && result.error.code).toBe('not_found');
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  });

  it('should capture an element of a tab of a loopback endpoint as it is', async () => {
    const shared = await startSharedBrowser();
    try {
      const created = await fetch(`${shared.endpoint}/json/new?${encodeURIComponent(`${server.origin}/v2`)}`, {
        method: 'PUT',
      });
      const tab = (await created.json()) as { id: string };
      // The tab loads on its own: until #b exists the capture is not_found.
      let shot: WebScreenshot | null = null;
      for (let i = 0; i < 200 && shot === null; i++) {
        const result = await call(captureWebScreenshotTool, {
          endpoint: shared.endpoint,
          target_id: tab.id,
          selector: '#b',
        });
        if (result.error === null) {
          shot = (result.outcome as unknown as { record: EvidenceRecord<WebScreenshot> }).record.normalized_result;
          owned.push(dirname(shot.path));
        } else {
          expect(isReaError(result.error) && result.error.code).toBe('not_found');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      expect(shot).toMatchObject({ target: { id: tab.id, url: `${server.origin}/v2` }, width: 80, height: 40 });
      const { result } = await compare({ before: { path: b1.path }, after: { path: shot!.path } });
      expect(result).toMatchObject({ differing_pixels: 3200 });
    } finally {
      await shared.supervisor.closeAll();
    }
  });
});

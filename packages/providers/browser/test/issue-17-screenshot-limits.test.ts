import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { compareWebScreenshotsTool } from '@rea/provider-browser';
import { call } from './support.js';

let work: string;
let small: string;

/** The signature and IHDR chunk of a PNG declaring `width`×`height` (no image data follows). */
function header(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.set([8, 6, 0, 0, 0], 16);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'rea-shot-limits-'));
  small = join(work, 'small.png');
  const png = new PNG({ width: 4, height: 4 });
  png.data.fill(255);
  writeFileSync(small, PNG.sync.write(png));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('compare_web_screenshots limits', () => {
  it('should refuse a PNG whose header declares more pixels than the limit, before decoding it', async () => {
    for (const [width, height] of [
      [12_000, 12_000],
      [100_000, 100_000],
    ] as const) {
      const big = join(work, `big-${width}.png`);
      writeFileSync(big, header(width, height));
      const result = await call(compareWebScreenshotsTool, { before: { path: small }, after: { path: big } });
      expect(result.error).toMatchObject({
        code: 'resource_constraint',
        details: { resource: 'memory', unit: 'pixels', limit: 40_000_000, observed: width * height, width, height },
      });
    }
  });

  it('should refuse a directory as diff_path with invalid_request, writing nothing', async () => {
    const directory = join(work, 'out');
    mkdirSync(directory);
    const result = await call(compareWebScreenshotsTool, {
      before: { path: small },
      after: { path: small },
      diff_path: directory,
    });
    expect(result.error).toMatchObject({ code: 'invalid_request', details: { reason: 'diff-path-not-a-file' } });
    expect(readdirSync(directory)).toEqual([]);
    const file = join(directory, 'diff.png');
    const written = await call(compareWebScreenshotsTool, {
      before: { path: small },
      after: { path: small },
      diff_path: file,
    });
    expect(written.error).toBeNull();
    expect(readdirSync(directory)).toEqual(['diff.png']);
  });
});

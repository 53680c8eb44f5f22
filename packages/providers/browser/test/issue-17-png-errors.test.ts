import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { EvidenceRecord } from '@rea/evidence';
import { captureWebScreenshotTool, compareWebScreenshotsTool } from '@rea/provider-browser';
import type { WebScreenshot } from '@rea/provider-browser';
import { call, servePages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
let work: string;
let shot: WebScreenshot;

beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: '<!doctype html><body style="background:#0a0"><p>shot</p>' },
  });
  work = mkdtempSync(join(tmpdir(), 'rea-png-errors-test-'));
  // A PNG as Chromium writes it: the variants below are made from it.
  const result = await call(captureWebScreenshotTool, { url: `${server.origin}/` });
  if (result.error) throw result.error;
  shot = (result.outcome as unknown as { record: EvidenceRecord<WebScreenshot> }).record.normalized_result;
}, 120_000);

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  if (shot) rmSync(dirname(shot.path), { recursive: true, force: true });
  await server?.close();
});

/** The chunks of a PNG: offset of each chunk's length field, its type and data length. */
function chunks(png: Buffer): Array<{ at: number; type: string; length: number }> {
  const out = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    out.push({ at, type: png.toString('latin1', at + 4, at + 8), length });
    at += 12 + length;
  }
  return out;
}

/** A chunk of `type` holding `data`, with its checksum. */
function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** `png` with its header's bit depth set to 3, which no colour type allows (checksum made right). */
function badDepth(png: Buffer): Buffer {
  const header = Buffer.from(png.subarray(16, 29));
  header[8] = 3;
  return Buffer.concat([png.subarray(0, 8), chunk('IHDR', header), png.subarray(33)]);
}

/** `png` with a critical chunk no decoder knows (a capital first letter says a decoder may not skip it). */
function unknownCritical(png: Buffer): Buffer {
  return Buffer.concat([png.subarray(0, 33), chunk('QQQQ', Buffer.alloc(0)), png.subarray(33)]);
}

/** `png` with one byte of its first IDAT's data changed (its checksum left as it was). */
function flipped(png: Buffer): Buffer {
  const copy = Buffer.from(png);
  const idat = chunks(copy).find((c) => c.type === 'IDAT')!;
  copy[idat.at + 8 + Math.floor(idat.length / 2)]! ^= 0x01;
  return copy;
}

describe('compare_web_screenshots on files that are not valid PNGs', () => {
  it('should say in plain words which file is not a valid PNG and what is wrong, keeping the decoder out of the message', async () => {
    const png = readFileSync(shot.path);
    const cases: Array<[string, Buffer, string, RegExp]> = [
      ['empty', Buffer.alloc(0), 'empty', /the file is empty\.$/],
      ['text', Buffer.from('<html>not an image</html>'), 'not-png', /does not start with the PNG signature/],
      ['truncated', png.subarray(0, Math.floor(png.length / 2)), 'truncated', /ends before the image is complete/],
      ['damaged', flipped(png), 'damaged-chunk', /is damaged: its "IDAT" part fails its checksum\.$/],
      [
        'bad-header',
        badDepth(png),
        'bad-header',
        /has an image header no PNG may have \(bit depth 3 with colour type \d\)\.$/,
      ],
      ['undecodable', unknownCritical(png), 'undecodable', /the file cannot be decoded as an image\.$/],
    ];
    for (const [name, bytes, problem, says] of cases) {
      const path = join(work, `${name}.png`);
      writeFileSync(path, bytes);
      const { error } = await call(compareWebScreenshotsTool, { before: { path: shot.path }, after: { path } });
      expect(error).toMatchObject({
        code: 'unsupported_target',
        message: expect.stringMatching(
          new RegExp(`^after \\(${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) is not a valid PNG: the file `),
        ),
        details: { reason: 'not-png', format: 'png', path, field: 'after', problem },
      });
      const message = (error as Error).message;
      expect(message).toMatch(says);
      // Nothing of the decoder's own wording ("Crc error - …", "Unexpected end of input", …).
      expect(message).not.toMatch(/crc error|unexpected end|invalid file signature|inflate|unrecognised|zlib/i);
    }
    // Only what the decoder alone found keeps its wording, in details.
    const { error } = await call(compareWebScreenshotsTool, {
      before: { path: join(work, 'undecodable.png') },
      after: { path: shot.path },
    });
    expect(error).toMatchObject({ details: { field: 'before', problem: 'undecodable', decoder: expect.any(String) } });
    const { error: structural } = await call(compareWebScreenshotsTool, {
      before: { path: join(work, 'damaged.png') },
      after: { path: shot.path },
    });
    expect((structural as { details: object }).details).not.toHaveProperty('decoder');
  });

  it('should still compare the valid PNG with itself', async () => {
    const diff = join(work, 'diff.png');
    const { outcome, error } = await call(compareWebScreenshotsTool, {
      before: { path: shot.path },
      after: { path: shot.path },
      diff_path: diff,
    });
    expect(error).toBeNull();
    expect(
      (outcome as unknown as { record: EvidenceRecord<{ identical: boolean }> }).record.normalized_result.identical,
    ).toBe(true);
  });
});

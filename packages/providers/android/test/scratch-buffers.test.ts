// Large reads go through reused 1 MiB buffers (../src/format/scratch.ts): a fresh buffer costs a page
// fault per 4 KiB page on first write, paid again by every call of a long-lived server. These tests
// check the reuse, and that a buffer a read may still fill (a cancelled hashing) is never handed out again.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { LARGE_MAX, SCRATCH, giveBackLarge, giveBackScratch, takeLarge, takeScratch } from '../src/format/scratch.js';
import { FileBytes } from '../src/format/fileBytes.js';
import { crcOfRange, digestFile } from '../src/signing/fileDigests.js';

let dir: string;
let file: string;
let bytes: Buffer;

/** Empties the pool and fills it with four buffers this test holds; returns them. */
function seedPool(): Set<Buffer> {
  const ours = [takeScratch(), takeScratch(), takeScratch(), takeScratch()];
  // Whatever the pool held before is now in `ours`, or was never there: the pool is empty.
  for (const b of ours) giveBackScratch(b);
  return new Set(ours);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-scratch-'));
  file = join(dir, 'data.bin');
  // 3.5 MiB of varied bytes: reads of whole chunks and a short last one.
  bytes = Buffer.alloc(3.5 * SCRATCH);
  for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE((i * 2654435761) >>> 0, i);
  writeFileSync(file, bytes);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scratch buffers', () => {
  it('hands back what was given, keeps at most four, and refuses buffers of another size or views', () => {
    const ours = seedPool();
    const taken = [takeScratch(), takeScratch(), takeScratch(), takeScratch(), takeScratch()];
    expect(taken.slice(0, 4).every((b) => ours.has(b))).toBe(true);
    expect(ours.has(taken[4]!)).toBe(false);
    expect(taken.every((b) => b.length === SCRATCH)).toBe(true);
    for (const b of taken) giveBackScratch(b);
    // Five given back, four kept: the fifth take is a new buffer.
    const again = [1, 2, 3, 4, 5].map(() => takeScratch());
    expect(new Set(again.slice(0, 4)).size).toBe(4);
    expect(again.slice(0, 4).every((b) => taken.includes(b))).toBe(true);
    expect(taken.includes(again[4]!)).toBe(false);
    giveBackScratch(Buffer.allocUnsafeSlow(4096));
    giveBackScratch(again[0]!.subarray(1));
    const next = takeScratch();
    expect(next.length).toBe(SCRATCH);
    expect(next.byteOffset).toBe(0);
  });

  it('a finished hashing gives its two buffers back, with the digests unchanged', async () => {
    const ours = seedPool();
    const handle = await open(file, 'r');
    try {
      const range = { start: 100_000, end: 2_500_000 };
      const out = await digestFile(handle, bytes.length, null, [], true, undefined, range);
      expect(out.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(out.crc32).toBe(crc32(bytes.subarray(range.start, range.end)) >>> 0);
    } finally {
      await handle.close();
    }
    const after = [takeScratch(), takeScratch(), takeScratch(), takeScratch()];
    expect(after.every((b) => ours.has(b))).toBe(true);
  });

  it('a cancelled hashing keeps its buffers out of the pool (a read may still fill them)', async () => {
    const ours = seedPool();
    const handle = await open(file, 'r');
    const controller = new AbortController();
    try {
      const hashing = digestFile(handle, bytes.length, null, [], true, controller.signal);
      controller.abort();
      await expect(hashing).rejects.toMatchObject({ code: 'cancelled' });
    } finally {
      await handle.close();
    }
    // It took two of the four: two of ours are left, then new buffers.
    const after = [takeScratch(), takeScratch(), takeScratch()];
    expect(after.filter((b) => ours.has(b))).toHaveLength(2);
    expect(ours.has(after[2]!)).toBe(false);
  });

  it('a paged view of a file reads through one scratch buffer and gives it back when released', () => {
    const ours = seedPool();
    const fd = openSync(file, 'r');
    try {
      const view = new FileBytes(fd, 10, bytes.length - 10, 'test');
      // Pages far apart, more than a buffer holds: the oldest pages' memory is reused.
      for (let at = 0; at + 4 <= view.length; at += 70_001) expect(view.u32(at)).toBe(bytes.readUInt32LE(at + 10));
      expect(view.text('latin1', 65_530, 65_545)).toBe(bytes.toString('latin1', 65_540, 65_555));
      view.release();
    } finally {
      closeSync(fd);
    }
    // It took one of the four and gave it back: all four are ours.
    const after = [takeScratch(), takeScratch(), takeScratch(), takeScratch()];
    expect(after.every((b) => ours.has(b))).toBe(true);
  });

  it('the CRC-32 of a range read at once matches zlib on the same bytes, and gives its buffer back', () => {
    const ours = seedPool();
    const fd = openSync(file, 'r');
    try {
      for (const range of [
        { start: 0, end: bytes.length },
        { start: 12_345, end: 3 * SCRATCH + 7 },
        { start: 5, end: 5 },
      ])
        expect(crcOfRange(fd, range, undefined).crc32).toBe(crc32(bytes.subarray(range.start, range.end)) >>> 0);
      // A range past the end of the file: the file is shorter than its directory says.
      expect(() => crcOfRange(fd, { start: bytes.length - 10, end: bytes.length + 10 }, undefined)).toThrow(
        'the file is shorter than its ZIP directory says',
      );
      const controller = new AbortController();
      controller.abort();
      expect(() => crcOfRange(fd, { start: 0, end: 100 }, controller.signal)).toThrow(
        expect.objectContaining({ code: 'cancelled' }),
      );
    } finally {
      closeSync(fd);
    }
    // Its reads were all made at once, even those that failed: the buffer is back each time.
    const after = [takeScratch(), takeScratch(), takeScratch(), takeScratch()];
    expect(after.every((b) => ours.has(b))).toBe(true);
  });

  it('refuses a process its first whole read, then lends one kept buffer at a time, and drops it once idle', () => {
    jest.useFakeTimers();
    try {
      // This file's process has asked for none before.
      expect(takeLarge(10)).toBeNull();
      const first = takeLarge(3 * SCRATCH + 1);
      expect(first).not.toBeNull();
      // Whole MiB.
      expect(first!.length).toBe(4 * SCRATCH);
      // Lent: a second reader reads another way.
      expect(takeLarge(10)).toBeNull();
      giveBackLarge(first!);
      // The same buffer while it is large enough, a larger one when not.
      const again = takeLarge(SCRATCH);
      expect(again).toBe(first);
      giveBackLarge(again!);
      const larger = takeLarge(5 * SCRATCH);
      expect(larger).not.toBe(first);
      expect(larger!.length).toBe(5 * SCRATCH);
      // A buffer that is not the kept one changes nothing.
      giveBackLarge(first!);
      expect(takeLarge(10)).toBeNull();
      giveBackLarge(larger!);
      expect(takeLarge(LARGE_MAX + 1)).toBeNull();
      // Kept while used within the idle time, dropped after it.
      jest.advanceTimersByTime(29_000);
      const kept = takeLarge(10);
      expect(kept).toBe(larger);
      giveBackLarge(kept!);
      jest.advanceTimersByTime(30_001);
      const fresh = takeLarge(10);
      expect(fresh).not.toBe(larger);
      giveBackLarge(fresh!);
    } finally {
      jest.useRealTimers();
    }
  });
});

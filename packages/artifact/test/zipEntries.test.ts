import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { listZipEntries, openZipEntries } from '@rea/artifact';
import { buildZip } from './helpers/zipWriter.js';

const BUDGET = { maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 21 };
let dir: string;
let archive: string;
const text = Buffer.from('the quick brown fox jumps over the lazy dog\n'.repeat(200));
const noise = randomBytes(5000);
const nested = Buffer.from('nested\n');
// Past the 1 MiB small-entry threshold: stored, it is read straight into one buffer.
const big = randomBytes(1_572_864 + 7);
let bigArchive: string;

/** Rejection of `promise`, or null when it resolves. */
const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-zip-entries-'));
  const src = join(dir, 'src');
  mkdirSync(join(src, 'dir'), { recursive: true });
  writeFileSync(join(src, 'a.txt'), text);
  writeFileSync(join(src, 'b.bin'), noise);
  writeFileSync(join(src, 'dir', 'c.txt'), nested);
  archive = join(dir, 'real.zip');
  execFileSync('zip', ['-q', '-X', archive, 'a.txt', 'dir/', 'dir/c.txt'], { cwd: src });
  execFileSync('zip', ['-q', '-X', '-0', archive, 'b.bin'], { cwd: src });
  writeFileSync(join(src, 'big.bin'), big);
  bigArchive = join(dir, 'big.zip');
  execFileSync('zip', ['-q', '-X', '-0', bigArchive, 'b.bin', 'big.bin'], { cwd: src });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the real archive with `edit` applied to its bytes. */
function mutated(name: string, edit: (bytes: Buffer) => Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, edit(Buffer.from(readFileSync(archive))));
  return path;
}

describe('listZipEntries', () => {
  it('lists every entry from the central directory as zip wrote it', async () => {
    const { entries, complete, declaredCount } = await listZipEntries(archive);
    expect(complete).toBe(true);
    expect(declaredCount).toBe(4);
    const byPath = new Map(entries.map((e) => [e.path, e]));
    expect([...byPath.keys()].sort()).toEqual(['a.txt', 'b.bin', 'dir', 'dir/c.txt']);
    expect(byPath.get('a.txt')).toMatchObject({
      kind: 'file',
      size: text.length,
      compressionMethod: 8,
      crc32: crc32(text) >>> 0,
      problem: null,
    });
    expect(byPath.get('a.txt')!.compressedSize).toBeLessThan(text.length);
    expect(byPath.get('b.bin')).toMatchObject({ size: 5000, compressedSize: 5000, compressionMethod: 0 });
    expect(byPath.get('dir')).toMatchObject({ kind: 'directory', size: 0 });
  });

  it('marks duplicated and unsafe names', async () => {
    const bytes = buildZip([
      { name: 'x.txt', data: Buffer.from('one') },
      { name: 'x.txt', data: Buffer.from('two') },
      { name: '../evil.txt', data: Buffer.from('evil') },
      { name: 'ok.txt', data: Buffer.from('ok') },
    ]);
    const { entries } = await listZipEntries(bytes);
    expect(entries.map((e) => [e.path, e.problem])).toEqual([
      ['x.txt', 'path-conflict'],
      ['x.txt', 'path-conflict'],
      ['../evil.txt', 'parent-segment'],
      ['ok.txt', null],
    ]);
  });

  it('refuses a truncated archive, a non-ZIP and a missing file, typed', async () => {
    const cut = mutated('cut.zip', (b) => b.subarray(0, Math.floor(b.length / 2)));
    await expect(listZipEntries(cut)).rejects.toMatchObject({
      code: 'unsupported_target',
      details: { reason: 'malformed' },
    });
    await expect(listZipEntries(Buffer.from('not a zip at all'))).rejects.toMatchObject({
      code: 'unsupported_target',
    });
    await expect(listZipEntries(join(dir, 'absent.zip'))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses overlapping entries as the inventory does', async () => {
    const bytes = buildZip([
      { name: 'one', data: Buffer.alloc(64, 1) },
      { name: 'two', data: Buffer.alloc(64, 2), localOffset: 0 },
    ]);
    await expect(listZipEntries(bytes)).rejects.toMatchObject({
      code: 'unsupported_target',
      details: { reason: 'malformed' },
    });
  });
});

describe('ZipEntries.read', () => {
  it('reads chosen entries, CRC-checked and hashed, and nothing else', async () => {
    const zip = await openZipEntries(archive);
    try {
      const { contents, contradictions } = await zip.read(['dir/c.txt', 'a.txt', 'b.bin'], BUDGET);
      expect(contradictions).toEqual([]);
      expect([...contents.keys()]).toEqual(['dir/c.txt', 'a.txt', 'b.bin']);
      for (const [path, bytes] of [
        ['a.txt', text],
        ['b.bin', noise],
        ['dir/c.txt', nested],
      ] as const) {
        expect(contents.get(path)!.bytes.equals(bytes)).toBe(true);
        expect(contents.get(path)!.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      }
    } finally {
      zip.close();
    }
  });

  it('refuses absent paths, directories and budgets before reading', async () => {
    const zip = await openZipEntries(archive);
    try {
      await expect(zip.read(['nope.txt'], BUDGET)).rejects.toMatchObject({ code: 'not_found' });
      await expect(zip.read(['dir'], BUDGET)).rejects.toMatchObject({ code: 'unsupported_target' });
      await expect(zip.read(['a.txt'], { ...BUDGET, maxEntryBytes: text.length - 1 })).rejects.toMatchObject({
        code: 'resource_constraint',
        details: { budget: 'max_entry_bytes', limit: text.length - 1 },
      });
      await expect(zip.read(['a.txt', 'b.bin'], { ...BUDGET, maxTotalBytes: text.length + 10 })).rejects.toMatchObject({
        code: 'resource_constraint',
        details: { budget: 'max_total_bytes' },
      });
    } finally {
      zip.close();
    }
  });

  it('refuses duplicated and unsafe names when they are read', async () => {
    const zip = await openZipEntries(
      buildZip([
        { name: 'x.txt', data: Buffer.from('one') },
        { name: 'x.txt', data: Buffer.from('two') },
        { name: '../evil.txt', data: Buffer.from('evil') },
        { name: 'ok.txt', data: Buffer.from('ok') },
      ]),
    );
    try {
      await expect(zip.read(['x.txt'], BUDGET)).rejects.toMatchObject({
        code: 'unsupported_target',
        details: { reason: 'unsafe-path', problem: 'path-conflict' },
      });
      await expect(zip.read(['../evil.txt'], BUDGET)).rejects.toMatchObject({
        details: { reason: 'unsafe-path', problem: 'parent-segment' },
      });
      const { contents } = await zip.read(['ok.txt'], BUDGET);
      expect(contents.get('ok.txt')!.bytes.toString()).toBe('ok');
    } finally {
      zip.close();
    }
  });

  it('applies the integrity policy to bytes that contradict their CRC-32', async () => {
    const { entries } = await listZipEntries(archive);
    const b = entries.find((e) => e.path === 'b.bin')!;
    // b.bin is stored: flip one byte of its data (past the 30-byte local header and its name).
    const path = mutated('flipped.zip', (bytes) => {
      bytes[b.localHeaderOffset + 30 + 'b.bin'.length + 100]! ^= 0xff;
      return bytes;
    });
    const zip = await openZipEntries(path);
    try {
      await expect(zip.read(['b.bin'], BUDGET)).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 'b.bin', algorithm: 'crc32' },
      });
      const kept = await zip.read(['a.txt', 'b.bin'], { ...BUDGET, integrityPolicy: 'record-and-continue' });
      expect([...kept.contents.keys()]).toEqual(['a.txt']);
      expect(kept.contradictions).toEqual([expect.objectContaining({ path: 'b.bin', algorithm: 'crc32' })]);
    } finally {
      zip.close();
    }
  });

  it('refuses an entry whose local header is damaged, typed', async () => {
    const { entries } = await listZipEntries(archive);
    const a = entries.find((e) => e.path === 'a.txt')!;
    const path = mutated('header.zip', (bytes) => bytes.fill(0, a.localHeaderOffset, a.localHeaderOffset + 4));
    const zip = await openZipEntries(path);
    try {
      const error = await rejection(zip.read(['a.txt'], BUDGET));
      expect(error).toMatchObject({ code: 'unsupported_target', details: { reason: 'malformed' } });
      // The other entries stay readable.
      const { contents } = await zip.read(['dir/c.txt'], BUDGET);
      expect(contents.get('dir/c.txt')!.bytes.equals(nested)).toBe(true);
    } finally {
      zip.close();
    }
  });

  it('refuses deflated data that does not inflate, and an aborted signal', async () => {
    const { entries } = await listZipEntries(archive);
    const a = entries.find((e) => e.path === 'a.txt')!;
    const path = mutated('garbled.zip', (bytes) => {
      const start = a.localHeaderOffset + 30 + 'a.txt'.length;
      return bytes.fill(0xff, start, start + a.compressedSize);
    });
    const zip = await openZipEntries(path);
    try {
      await expect(zip.read(['a.txt'], BUDGET)).rejects.toMatchObject({ code: 'artifact_integrity_mismatch' });
      const controller = new AbortController();
      controller.abort();
      await expect(zip.read(['dir/c.txt'], { ...BUDGET, signal: controller.signal })).rejects.toMatchObject({
        code: 'cancelled',
      });
    } finally {
      zip.close();
    }
  });
});

describe('ZipEntries.read of a large stored entry', () => {
  it('reads it whole, CRC-checked, hashed unless told not to', async () => {
    const zip = await openZipEntries(bigArchive);
    try {
      const { contents } = await zip.read(['big.bin'], { ...BUDGET, maxEntryBytes: 2 << 20, maxTotalBytes: 2 << 20 });
      expect(contents.get('big.bin')!.bytes.equals(big)).toBe(true);
      expect(contents.get('big.bin')!.sha256).toBe(createHash('sha256').update(big).digest('hex'));
      const unhashed = await zip.read(['big.bin'], { maxEntryBytes: 2 << 20, maxTotalBytes: 2 << 20, hash: false });
      expect(unhashed.contents.get('big.bin')!.sha256).toBeNull();
      expect(unhashed.contents.get('big.bin')!.bytes.equals(big)).toBe(true);
    } finally {
      zip.close();
    }
  });

  it('reports a flipped byte, and refuses a damaged local header', async () => {
    const { entries } = await listZipEntries(bigArchive);
    const at = entries.find((e) => e.path === 'big.bin')!.localHeaderOffset;
    const bytes = readFileSync(bigArchive);
    const budget = { maxEntryBytes: 2 << 20, maxTotalBytes: 2 << 20 };
    const flippedPath = join(dir, 'big-flipped.zip');
    const flipped = Buffer.from(bytes);
    flipped[at + 30 + 'big.bin'.length + 1_000_000]! ^= 0x01;
    writeFileSync(flippedPath, flipped);
    const damagedPath = join(dir, 'big-header.zip');
    writeFileSync(damagedPath, Buffer.from(bytes).fill(0, at, at + 4));
    const zip = await openZipEntries(flippedPath);
    try {
      await expect(zip.read(['big.bin'], budget)).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { algorithm: 'crc32', path: 'big.bin' },
      });
      const kept = await zip.read(['big.bin', 'b.bin'], { ...budget, integrityPolicy: 'record-and-continue' });
      expect([...kept.contents.keys()]).toEqual(['b.bin']);
      expect(kept.contradictions).toEqual([expect.objectContaining({ path: 'big.bin', algorithm: 'crc32' })]);
    } finally {
      zip.close();
    }
    const damaged = await openZipEntries(damagedPath);
    try {
      await expect(damaged.read(['big.bin'], budget)).rejects.toMatchObject({
        code: 'unsupported_target',
        details: { reason: 'malformed' },
      });
    } finally {
      damaged.close();
    }
  });
});

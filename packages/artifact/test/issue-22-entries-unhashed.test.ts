import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openZipEntries } from '@rea/artifact';

// `hash: false` spares the SHA-256 of every entry read, small (deflated or stored, read in one call)
// and large (streamed) alike; CRC-32 and size are still checked.
let dir: string;
let archive: string;
const text = Buffer.from('small deflated entry\n'.repeat(300));
const noise = randomBytes(4000);
// Past the 1 MiB small-entry threshold and deflated: streamed.
const large = Buffer.from('large deflated entry, streamed\n'.repeat(40_000));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-issue-22-unhashed-'));
  writeFileSync(join(dir, 'small.txt'), text);
  writeFileSync(join(dir, 'stored.bin'), noise);
  writeFileSync(join(dir, 'large.txt'), large);
  archive = join(dir, 'a.zip');
  execFileSync('zip', ['-q', '-X', archive, 'small.txt', 'large.txt'], { cwd: dir });
  execFileSync('zip', ['-q', '-X', '-0', archive, 'stored.bin'], { cwd: dir });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ZipEntries.read with hash: false (issue 22)', () => {
  const paths = ['small.txt', 'stored.bin', 'large.txt'];
  const budget = { maxEntryBytes: 4 << 20, maxTotalBytes: 8 << 20 };

  it('returns every entry unhashed, with its exact bytes', async () => {
    const zip = await openZipEntries(archive);
    try {
      const read = await zip.read(paths, { ...budget, hash: false });
      expect([...read.contents.keys()]).toEqual(paths);
      expect(paths.map((p) => read.contents.get(p)!.sha256)).toEqual([null, null, null]);
      expect(read.contents.get('small.txt')!.bytes.equals(text)).toBe(true);
      expect(read.contents.get('stored.bin')!.bytes.equals(noise)).toBe(true);
      expect(read.contents.get('large.txt')!.bytes.equals(large)).toBe(true);
    } finally {
      zip.close();
    }
  });

  it('hashes every entry by default', async () => {
    const zip = await openZipEntries(archive);
    try {
      const read = await zip.read(paths, budget);
      const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
      expect(paths.map((p) => read.contents.get(p)!.sha256)).toEqual([sha(text), sha(noise), sha(large)]);
    } finally {
      zip.close();
    }
  });

  it('still refuses an entry whose bytes contradict its CRC-32', async () => {
    const damaged = join(dir, 'damaged.zip');
    const bytes = readFileSync(archive);
    // The stored entry's data lies after its local header; flip one of its bytes.
    const at = bytes.indexOf(noise.subarray(0, 32));
    bytes.writeUInt8(bytes.readUInt8(at + 100) ^ 0xff, at + 100);
    writeFileSync(damaged, bytes);
    const zip = await openZipEntries(damaged);
    try {
      await expect(zip.read(['stored.bin'], { ...budget, hash: false })).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
      });
    } finally {
      zip.close();
    }
  });
});

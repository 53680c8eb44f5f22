// Extracting a few files of a large archive costs those files: entries that were not selected are
// neither prepared nor read (not even a link target), so their bytes are not read and their damage
// does not stop the extraction of what was asked for.
import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import type { ZipSpec } from './helpers/zipWriter.js';

/** Bytes read by this process so far (every read system call, whichever thread made it). */
const readSoFar = (): number => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

const wanted = Buffer.from('the one file asked for\n'.repeat(20));

describe('extraction of selected entries', () => {
  it('reads nothing of the symlinks it was not asked for', async () => {
    await withTempDir(async (tmp) => {
      // Links a little more than a megabyte apart, each behind a stored file of random bytes.
      const specs: ZipSpec[] = [];
      for (let i = 0; i < 24; i += 1) {
        specs.push({ name: `links/l${i}`, data: Buffer.from(`../data/f${i}.bin`), mode: 0o120777 });
        specs.push({ name: `data/f${i}.bin`, data: randomBytes(1_100_000), method: 0 });
      }
      specs.push({ name: 'wanted.txt', data: wanted });
      const zip = join(tmp, 'links.zip');
      writeFileSync(zip, buildZip(specs));
      const before = readSoFar();
      const { outputDirectory, result } = await extractArtifact(zip, { parentDirectory: tmp, select: ['wanted.txt'] });
      const read = readSoFar() - before;
      expect(result.files.map((f) => f.path)).toEqual(['wanted.txt']);
      expect(readFileSync(join(outputDirectory, 'wanted.txt'))).toEqual(wanted);
      // The archive is 26 MB: reading a block around each unselected link would read most of it.
      expect(read).toBeLessThan(4 << 20);
    });
  });

  it('extracts the selected files of an archive whose unselected link has a damaged local header', async () => {
    await withTempDir(async (tmp) => {
      const bytes = buildZip([
        { name: 'broken-link', data: Buffer.from('wanted.txt'), mode: 0o120777 },
        { name: 'wanted.txt', data: wanted },
      ]);
      // The first entry's local header starts the archive: its signature no longer reads.
      bytes.write('XXXX', 0, 'latin1');
      const zip = join(tmp, 'damaged.zip');
      writeFileSync(zip, bytes);
      const { outputDirectory, result } = await extractArtifact(zip, { parentDirectory: tmp, select: ['wanted.txt'] });
      expect(result.files).toMatchObject([{ path: 'wanted.txt', size: wanted.length, integrity: 'verified' }]);
      expect(readFileSync(join(outputDirectory, 'wanted.txt'))).toEqual(wanted);
      // Selected, the damaged link is refused as malformed, and nothing is presented.
      await expect(
        extractArtifact(zip, { parentDirectory: tmp, select: ['broken-link', 'wanted.txt'] }),
      ).rejects.toMatchObject({ code: 'unsupported_target' });
      expect(readdirSync(tmp).filter((name) => name.startsWith('rea-extract-'))).toHaveLength(1);
    });
  });
});

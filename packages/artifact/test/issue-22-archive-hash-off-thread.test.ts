import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileSha256 } from '../src/engine/fileHash.js';

// extract_artifact names its output after the archive's SHA-256, computed on a worker thread while
// the entries are extracted: the digest is the file's, and a cancel stops it.
let dir: string;
let small: string;
let large: string;
const bytes = randomBytes(3 * 1024 * 1024 + 17);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-issue-22-file-hash-'));
  small = join(dir, 'small.bin');
  writeFileSync(small, bytes);
  // A sparse file: nothing on disk, and far too large to hash within the test's timeout, so only a
  // stopped worker lets the cancelled call end.
  large = join(dir, 'large.bin');
  writeFileSync(large, '');
  truncateSync(large, 256 * 1024 ** 3);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SHA-256 of a whole file, off the calling thread (issue 22)', () => {
  it('is the digest of the file', async () => {
    const expected = createHash('sha256').update(bytes).digest('hex');
    await expect(fileSha256(small, new AbortController().signal)).resolves.toBe(expected);
  });

  it('is cancelled by a signal aborted before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(fileSha256(small, controller.signal)).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('is cancelled by a signal aborted while it opens the file, or while the worker hashes', async () => {
    for (const delay of [0, 300]) {
      const controller = new AbortController();
      const hashing = fileSha256(large, controller.signal);
      setTimeout(() => controller.abort(), delay);
      await expect(hashing).rejects.toMatchObject({ code: 'cancelled' });
    }
  }, 20_000);

  it('names a file that cannot be read', async () => {
    await expect(fileSha256(join(dir, 'absent.bin'), new AbortController().signal)).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

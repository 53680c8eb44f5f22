// Small regular files are read and hashed with synchronous calls (no thread-pool round trips), and
// anything that is not a small regular file is left to the caller's own path: checked here against
// node:crypto over the same bytes, real FIFOs, a folder, /proc and a file just over the bound.
import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SMALL_FILE_BYTES, hashSmallFileSync, readActiveTarget, readSmallFileSync } from '@rea/provider-kit';
import { withTempDir } from '@rea/test-helpers';

/** The built package, for a child process. */
const KIT = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Bytes that differ in every 256 KiB chunk, so that a chunk hashed twice or skipped changes the digest. */
function bytesOf(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 1) bytes[i] = (i * 31 + (i >>> 18)) & 0xff;
  return bytes;
}

describe('hashSmallFileSync', () => {
  it('should give the SHA-256, size and first bytes of a file, across chunk boundaries', async () => {
    await withTempDir(async (dir) => {
      for (const size of [0, 5, 8, 256 << 10, (256 << 10) + 1, 3 * (256 << 10) - 7, SMALL_FILE_BYTES]) {
        const bytes = bytesOf(size);
        const file = join(dir, `f${size}`);
        writeFileSync(file, bytes);
        const digest = hashSmallFileSync(file);
        expect(digest).not.toBeNull();
        expect(digest!.sha256).toBe(sha256(bytes));
        expect(digest!.bytesRead).toBe(size);
        expect(digest!.statSize).toBe(size);
        expect([...digest!.head]).toEqual([...bytes.subarray(0, 8)]);
      }
    });
  });

  it('should leave a file over the bound, a folder and a FIFO to the caller, without waiting on the FIFO', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'big');
      writeFileSync(file, bytesOf(10_000));
      expect(hashSmallFileSync(file, 9_999)).toBeNull();
      expect(hashSmallFileSync(file, 10_000)?.sha256).toBe(sha256(bytesOf(10_000)));
      expect(readSmallFileSync(file, 9_999)).toBeNull();
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      // Nothing writes to it: an open that waited for a writer would never return, so the calls run in a
      // child process that is stopped after 20 s (a blocked synchronous call cannot time out a test).
      const child = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const kit = await import(${JSON.stringify(pathToFileURL(KIT).href)});
           const path = ${JSON.stringify(fifo)};
           process.stdout.write(JSON.stringify([kit.hashSmallFileSync(path), kit.readSmallFileSync(path)]));`,
        ],
        { encoding: 'utf8', timeout: 20_000 },
      );
      expect(child.signal).toBeNull();
      expect(JSON.parse(child.stdout)).toEqual([null, null]);
      expect(hashSmallFileSync(dir)).toBeNull();
      expect(readSmallFileSync(dir)).toBeNull();
    });
  });

  it('should leave a file that turns out larger than the bound while read, though its status states less', () => {
    // /proc/version states 0 bytes and holds over 100.
    expect(hashSmallFileSync('/proc/version', 10)).toBeNull();
    expect(readSmallFileSync('/proc/version', 10)).toBeNull();
  });

  it('should read a file of /proc to its end, though its status states 0 bytes', () => {
    const digest = hashSmallFileSync('/proc/version');
    const bytes = readFileSync('/proc/version');
    expect(bytes.length).toBeGreaterThan(0);
    expect(digest).toEqual({ sha256: sha256(bytes), bytesRead: bytes.length, statSize: 0, head: bytes.subarray(0, 8) });
    expect(readSmallFileSync('/proc/version')).toEqual(bytes);
  });

  it('should throw the system error of a missing path, for the caller to type', () => {
    expect(() => hashSmallFileSync('/nonexistent/rea-small-file')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(() => readSmallFileSync('/nonexistent/rea-small-file')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});

describe('readActiveTarget on both sides of the small-file bound', () => {
  it('should give the same identity whether the file is read at once or streamed', async () => {
    await withTempDir(async (dir) => {
      for (const size of [SMALL_FILE_BYTES, SMALL_FILE_BYTES + 1]) {
        const bytes = bytesOf(size);
        bytes.set([0x7f, 0x45, 0x4c, 0x46]);
        const file = join(dir, `t${size}`);
        writeFileSync(file, bytes);
        expect(await readActiveTarget(file, new AbortController().signal)).toEqual({
          path: file,
          format: 'elf',
          sha256: sha256(bytes),
          size,
        });
      }
    });
  });

  it('should answer a cancelled call with cancelled before reading a small file', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'small');
      writeFileSync(file, 'x');
      const controller = new AbortController();
      controller.abort();
      await expect(readActiveTarget(file, controller.signal)).rejects.toMatchObject({ code: 'cancelled' });
    });
  });
});

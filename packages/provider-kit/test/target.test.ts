import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isReaError } from '@rea/evidence';
import { readActiveTarget, sniffTargetFormat } from '@rea/provider-kit';
import { withTempDir } from '@rea/test-helpers';

const here = dirname(fileURLToPath(import.meta.url));

async function refusal(promise: Promise<unknown>): Promise<{ code: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected a refusal');
}

describe('readActiveTarget', () => {
  it('should record the absolute path, the coarse format, the SHA-256 and the size', async () => {
    await withTempDir(async (dir) => {
      const bytes = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(100_000, 7)]);
      const file = join(dir, 'a.bin');
      writeFileSync(file, bytes);
      const target = await readActiveTarget(file, new AbortController().signal);
      expect(target).toEqual({
        path: file,
        format: 'elf',
        sha256: createHash('sha256').update(bytes).digest('hex'),
        size: bytes.length,
      });
    });
  });

  it('should refuse a missing path with not_found, and a directory or a device with unsupported_target', async () => {
    await withTempDir(async (dir) => {
      const missing = await refusal(readActiveTarget(join(dir, 'absent'), new AbortController().signal));
      expect(missing).toMatchObject({ code: 'not_found', details: { reason: 'missing', errno: 'ENOENT' } });
      const under = await refusal(readActiveTarget(join(dir, 'absent', 'x'), new AbortController().signal));
      expect(under).toMatchObject({ code: 'not_found', details: { reason: 'missing', errno: 'ENOENT' } });
      mkdirSync(join(dir, 'sub'));
      const directory = await refusal(readActiveTarget(join(dir, 'sub'), new AbortController().signal));
      expect(directory).toMatchObject({
        code: 'unsupported_target',
        details: { format: 'directory', reason: 'not-a-file' },
      });
      const device = await refusal(readActiveTarget('/dev/null', new AbortController().signal));
      expect(device).toMatchObject({
        code: 'unsupported_target',
        details: { path: '/dev/null', format: 'special', reason: 'not-a-file' },
      });
    });
  });

  it('should refuse a file the user may not read with access_denied', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'secret.bin');
      writeFileSync(file, Buffer.alloc(64, 1));
      chmodSync(file, 0o000);
      // Root reads any file: as root, the child runs without the capabilities that override file
      // permissions (util-linux's setpriv), so the file's mode applies to it as to its owner.
      const asRoot = process.getuid?.() === 0;
      const script = `import { readActiveTarget } from '@rea/provider-kit';
try { await readActiveTarget(${JSON.stringify(file)}, new AbortController().signal); console.log('{}'); }
catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message, details: error.details })); }`;
      const node = [process.execPath, '--input-type=module', '-e', script];
      const [command, ...args] = asRoot
        ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--', ...node]
        : node;
      const run = spawnSync(command!, args, { cwd: here, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toMatchObject({
        code: 'access_denied',
        details: { path: file, reason: 'EACCES' },
      });
    });
  });

  it('should report cancellation while hashing as cancelled', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'big.bin');
      writeFileSync(file, Buffer.alloc(4 << 20));
      const controller = new AbortController();
      controller.abort();
      expect((await refusal(readActiveTarget(file, controller.signal))).code).toBe('cancelled');
    });
  });
});

describe('sniffTargetFormat', () => {
  it('should name the formats by their magic bytes', () => {
    expect(sniffTargetFormat(Uint8Array.from([0x4d, 0x5a, 0x90, 0]))).toBe('pe');
    expect(sniffTargetFormat(Uint8Array.from([0xcf, 0xfa, 0xed, 0xfe]))).toBe('mach-o');
    expect(sniffTargetFormat(Uint8Array.from([0xca, 0xfe, 0xba, 0xbe]))).toBe('mach-o-universal');
    expect(sniffTargetFormat(Uint8Array.from([0x50, 0x4b, 0x03, 0x04]))).toBe('zip');
    expect(sniffTargetFormat(Uint8Array.from([1, 2, 3, 4]))).toBe('unknown');
  });
});

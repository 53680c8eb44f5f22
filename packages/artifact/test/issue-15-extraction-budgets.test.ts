import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { extractArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import type { ZipSpec } from './helpers/zipWriter.js';

const MiB = 1024 * 1024;
const zeros = Buffer.alloc(64 * MiB);

async function refusal(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (!isReaError(error)) throw error;
    return error;
  }
  throw new Error('expected a refusal');
}

/** Extracts `specs` as a ZIP into `tmp/out` and returns the refusal; `out` must be left empty. */
async function refusedZip(tmp: string, specs: ZipSpec[], options: Parameters<typeof extractArtifact>[1] = {}) {
  const archive = join(tmp, 'a.zip');
  writeFileSync(archive, buildZip(specs));
  const parent = join(tmp, 'out');
  mkdirSync(parent);
  const error = await refusal(extractArtifact(archive, { ...options, parentDirectory: parent }));
  expect(readdirSync(parent)).toEqual([]);
  return error;
}

describe('issue 15: extraction budgets', () => {
  it('should refuse a compression bomb by its ratio and keep nothing (not report it complete)', async () => {
    await withTempDir(async (tmp) => {
      const error = await refusedZip(tmp, [{ name: 'zeros.bin', data: zeros, zip64: true }]);
      expect(error).toMatchObject({
        code: 'resource_constraint',
        details: { resource: 'disk', budget: 'max_ratio', limit: 200, path: 'zeros.bin' },
      });
    });
  });

  it('should refuse before writing when the declared sizes or the file count pass the budgets', async () => {
    await withTempDir(async (tmp) => {
      const files = Array.from({ length: 20 }, (_, i) => ({
        name: `f${i}.txt`,
        data: Buffer.alloc(1000, 65),
        method: 0 as const,
      }));
      expect(await refusedZip(join(tmp), files, { budgets: { max_entries: 10 } })).toMatchObject({
        code: 'resource_constraint',
        details: { budget: 'max_entries', limit: 10, observed: 20 },
      });
      rmSync(join(tmp, 'out'), { recursive: true });
      expect(await refusedZip(tmp, files, { budgets: { max_bytes: 5000 } })).toMatchObject({
        code: 'resource_constraint',
        details: { budget: 'max_bytes', limit: 5000, observed: 20_000 },
      });
    });
  });

  it('should refuse when the output file system would be left with less than the free space it keeps', async () => {
    await withTempDir(async (tmp) => {
      const error = await refusedZip(tmp, [{ name: 'a.txt', data: Buffer.from('a') }], {
        minFreeBytes: Number.MAX_SAFE_INTEGER,
      });
      expect(error).toMatchObject({ code: 'resource_constraint', details: { budget: 'min_free_bytes' } });
    });
  });

  it('should extract the same archive once the request raises the budget', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'a.zip');
      writeFileSync(archive, buildZip([{ name: 'zeros.bin', data: zeros.subarray(0, 8 * MiB) }]));
      const { outputDirectory, result } = await extractArtifact(archive, {
        parentDirectory: tmp,
        budgets: { max_ratio: 10_000 },
      });
      expect(result.files).toMatchObject([{ path: 'zeros.bin', size: 8 * MiB }]);
      expect(readFileSync(join(outputDirectory, 'zeros.bin')).length).toBe(8 * MiB);
    });
  });
});

describe('issue 15: names the file system cannot hold', () => {
  it.each([
    ['a 256-byte name component', `dir/${'n'.repeat(256)}.txt`, 'name-too-long', 255],
    ['a 60,000-byte name', 'x'.repeat(60_000), 'name-too-long', 255],
    ['a path 2,100 levels deep', `${'d/'.repeat(2100)}f.txt`, 'path-too-long', 3072],
  ])(
    'should refuse %s as unsupported_target before writing, naming the limit',
    async (_label, name, problem, limit) => {
      await withTempDir(async (tmp) => {
        const error = await refusedZip(tmp, [
          { name: 'ok.txt', data: Buffer.from('ok') },
          { name, data: Buffer.from('x') },
        ]);
        expect(error).toMatchObject({ code: 'unsupported_target', details: { reason: 'unsafe-path', problem, limit } });
        expect(error.message).not.toContain(tmp);
        expect(error.message.length).toBeLessThan(1000);
      });
    },
  );

  it.each([
    ['two files', ['README.md', 'readme.md'], 'readme.md', 'README.md'],
    ['a file and a directory', ['Lib', 'lib/a.js'], 'lib/a.js', 'Lib'],
    ['two Unicode normalizations', ['caf\u00e9.txt', 'cafe\u0301.txt'], 'cafe\u0301.txt', 'caf\u00e9.txt'],
  ])('should refuse %s that differ only in case as a case-collision', async (_label, names, path, other) => {
    await withTempDir(async (tmp) => {
      const error = await refusedZip(
        tmp,
        names.map((name) => ({ name, data: Buffer.from(name) })),
      );
      expect(error).toMatchObject({ code: 'unsupported_target', details: { problem: 'case-collision', path, other } });
    });
  });

  it('should extract one of two case-colliding entries when it is selected alone', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'a.zip');
      writeFileSync(
        archive,
        buildZip([
          { name: 'README.md', data: Buffer.from('upper') },
          { name: 'readme.md', data: Buffer.from('lower') },
        ]),
      );
      const { outputDirectory } = await extractArtifact(archive, { parentDirectory: tmp, select: ['readme.md'] });
      expect(readFileSync(join(outputDirectory, 'readme.md'), 'utf8')).toBe('lower');
    });
  });
});

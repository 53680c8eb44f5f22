import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import type { ZipSpec } from './helpers/zipWriter.js';

const text = (s: string): Buffer => Buffer.from(s);

/** Writes `bytes`, extracts into a watched parent, and asserts the parent is left exactly as before. */
async function extractRefused(tmp: string, bytes: Buffer): Promise<unknown> {
  const archive = join(tmp, 'hostile.zip');
  writeFileSync(archive, bytes);
  const parent = join(tmp, 'parent');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(parent);
  const before = readdirSync(tmp).sort();
  const error = await extractArtifact(archive, { parentDirectory: parent }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(readdirSync(parent)).toEqual([]);
  expect(readdirSync(tmp).sort()).toEqual(before);
  return error;
}

describe('extractArtifact refuses hostile ZIP entries and writes nothing', () => {
  it.each<[string, ZipSpec[], string]>([
    [
      'zip-slip',
      [
        { name: 'ok.txt', data: text('ok') },
        { name: '../evil.txt', data: text('x') },
      ],
      'parent-segment',
    ],
    ['nested zip-slip', [{ name: 'a/../../evil.txt', data: text('x') }], 'parent-segment'],
    ['backslash zip-slip', [{ name: 'a\\..\\..\\evil.txt', data: text('x') }], 'parent-segment'],
    ['absolute path', [{ name: '/tmp/evil.txt', data: text('x') }], 'absolute-path'],
    ['drive path', [{ name: 'C:/evil.txt', data: text('x') }], 'absolute-path'],
    ['NUL byte', [{ name: 'a\0b.txt', data: text('x') }], 'nul-byte'],
    ['character device', [{ name: 'dev', data: Buffer.alloc(0), mode: 0o020644, method: 0 }], 'device-file'],
    ['fifo', [{ name: 'fifo', data: Buffer.alloc(0), mode: 0o010644, method: 0 }], 'device-file'],
    [
      'relative symlink escape',
      [{ name: 'link', data: text('../../etc/passwd'), mode: 0o120777, method: 0 }],
      'outward-symlink',
    ],
    ['absolute symlink', [{ name: 'd/link', data: text('/etc/passwd'), mode: 0o120777, method: 0 }], 'outward-symlink'],
    [
      'duplicate names',
      [
        { name: 'a', data: text('1') },
        { name: 'a', data: text('2') },
      ],
      'path-conflict',
    ],
    [
      'file then directory',
      [
        { name: 'a', data: text('1') },
        { name: 'a/b', data: text('2') },
      ],
      'path-conflict',
    ],
  ])('should refuse a %s with unsupported_target', async (_label, specs, problem) => {
    await withTempDir(async (tmp) => {
      const error = await extractRefused(tmp, buildZip(specs));
      expect(isReaError(error)).toBe(true);
      expect(error).toMatchObject({ code: 'unsupported_target', details: { reason: 'unsafe-path', problem } });
    });
  });

  it('should list unsafe entries in inventory with partial coverage naming them', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'slip.zip');
      writeFileSync(
        file,
        buildZip([
          { name: '../evil.txt', data: text('x') },
          { name: 'fine.txt', data: text('y') },
        ]),
      );
      const { inventory, coverage } = await inspectArtifact(file);
      expect(inventory.entries.map((e) => e.path)).toEqual(['../evil.txt', 'fine.txt']);
      expect(coverage.status).toBe('partial');
      expect(coverage.reasons.join('\n')).toContain('"../evil.txt" (parent-segment)');
    });
  });

  it('should allow a symlink that stays inside and not materialize it', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'in.zip');
      writeFileSync(
        file,
        buildZip([
          { name: 'd/f', data: text('1') },
          { name: 'd/link', data: text('f'), mode: 0o120777, method: 0 },
        ]),
      );
      const { outputDirectory, result } = await extractArtifact(file, { parentDirectory: tmp });
      expect(result.skipped).toEqual([{ path: 'd/link', reason: 'symlinks are not materialized' }]);
      expect(readdirSync(join(outputDirectory, 'd'))).toEqual(['f']);
    });
  });
});

describe('structural lies in ZIP archives', () => {
  const data = randomBytes(4000);

  it('should refuse overlapping entries (the zip-bomb construction) as malformed', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'bomb.zip');
      const specs: ZipSpec[] = [{ name: 'a', data }];
      for (let i = 0; i < 50; i += 1) specs.push({ name: `b${i}`, data, localOffset: 0 });
      writeFileSync(file, buildZip(specs));
      await expect(inspectArtifact(file)).rejects.toMatchObject({
        code: 'unsupported_target',
        details: { problem: 'overlapping-entries' },
      });
      expect(await extractRefused(tmp, readFileSync(file))).toMatchObject({ code: 'unsupported_target' });
    });
  });

  it.each<[string, ZipSpec, string]>([
    ['an uncompressed size larger than the data', { name: 'x', data, declaredSize: 9000 }, '9000 bytes'],
    ['an uncompressed size smaller than the data', { name: 'x', data, declaredSize: 10 }, '10 bytes'],
    ['a bad CRC-32', { name: 'x', data, crc: 0x12345678 }, '12345678'],
  ])('should fail closed on %s with artifact_integrity_mismatch', async (_label, spec, declared) => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'lie.zip');
      writeFileSync(file, buildZip([spec]));
      const error = await inspectArtifact(file).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 'x', declared, unpacked: false },
      });
      expect((error as { message: string }).message).toContain('record-and-continue');
      expect(await extractRefused(tmp, readFileSync(file))).toMatchObject({ code: 'artifact_integrity_mismatch' });
    });
  });

  it('should refuse a compressed size that reaches into the central directory', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'lie.zip');
      writeFileSync(file, buildZip([{ name: 'x', data, declaredCompressedSize: 100_000 }]));
      await expect(inspectArtifact(file)).rejects.toMatchObject({
        code: 'unsupported_target',
        details: { reason: 'malformed' },
      });
    });
  });

  it('should refuse truncated archives and archives without a central directory', async () => {
    await withTempDir(async (tmp) => {
      const whole = buildZip([
        { name: 'a', data },
        { name: 'b', data },
      ]);
      const cases = {
        half: whole.subarray(0, whole.length >> 1),
        'no-central-directory': whole.subarray(0, whole.indexOf(Buffer.from([0x50, 0x4b, 1, 2]))),
        'cut-in-central-directory': Buffer.concat([
          whole.subarray(0, whole.length - 40),
          whole.subarray(whole.length - 22),
        ]),
      };
      for (const [name, bytes] of Object.entries(cases)) {
        const file = join(tmp, `${name}.zip`);
        writeFileSync(file, bytes);
        const error = await inspectArtifact(file).catch((e: unknown) => e);
        // A file that no longer ends in an end record is no longer a ZIP: it is inventoried as a single file.
        if (error === undefined || !isReaError(error)) {
          const outcome = await inspectArtifact(file);
          expect(outcome.inventory.format).toBe('file');
          await expect(extractArtifact(file, { parentDirectory: tmp })).rejects.toMatchObject({
            code: 'unsupported_target',
          });
        } else expect(error.code).toBe('unsupported_target');
      }
    });
  });
});

describe('integrity_policy record-and-continue', () => {
  it('should quarantine the contradicted entry, record it, and verify its siblings', async () => {
    await withTempDir(async (tmp) => {
      const inner = buildZip([{ name: 'inner.txt', data: text('inner') }]);
      const file = join(tmp, 'mixed.zip');
      writeFileSync(
        file,
        buildZip([
          { name: 'good.txt', data: text('good') },
          { name: 'bad.zip', data: inner, crc: 1 },
          { name: 'nested.zip', data: inner },
        ]),
      );
      const { inventory, coverage } = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
      expect(coverage.status).toBe('partial');
      expect(inventory.integrity_contradictions).toEqual([
        expect.objectContaining({
          path: 'bad.zip',
          algorithm: 'crc32',
          declared: '00000001',
          trust: 'contradicted',
          provenance: 'zip-central-directory',
          unpacked: false,
          quarantined: true,
        }),
      ]);
      const byPath = Object.fromEntries(inventory.entries.map((e) => [e.path, e.integrity]));
      expect(byPath).toEqual({
        'good.txt': 'verified',
        'bad.zip': 'contradicted',
        'nested.zip': 'verified',
        'nested.zip!/inner.txt': 'verified',
      });
      expect(inventory.nested_containers).toEqual([
        { path: 'nested.zip', format: 'zip', expanded: true, reason: null },
      ]);
      const { result } = await extractArtifact(file, { integrityPolicy: 'record-and-continue', parentDirectory: tmp });
      expect(result.files.map((f) => [f.path, f.integrity])).toEqual([
        ['bad.zip', 'contradicted'],
        ['good.txt', 'verified'],
        ['nested.zip', 'verified'],
      ]);
      expect(result.integrity_contradictions.map((c) => [c.path, c.quarantined])).toEqual([['bad.zip', false]]);
    });
  });
});

describe('entries that cannot be read', () => {
  it('should list an encrypted entry unread with partial coverage, and refuse to extract it', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'enc.zip');
      writeFileSync(
        file,
        buildZip([{ name: 'secret', data: randomBytes(100), method: 0, encrypted: true, declaredSize: 88 }]),
      );
      const { inventory, coverage } = await inspectArtifact(file);
      expect(inventory.entries[0]).toMatchObject({ path: 'secret', sha256: null, integrity: 'unchecked' });
      expect(coverage.reasons.join()).toContain('encrypted');
      await expect(extractArtifact(file, { parentDirectory: tmp })).rejects.toMatchObject({
        code: 'unsupported_target',
        details: { reason: 'encrypted-entry' },
      });
    });
  });

  it('should stop at cancellation with cancelled', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'c.zip');
      writeFileSync(file, buildZip([{ name: 'a', data: randomBytes(1000) }]));
      const controller = new AbortController();
      controller.abort();
      await expect(inspectArtifact(file, { signal: controller.signal })).rejects.toMatchObject({ code: 'cancelled' });
      await expect(extractArtifact(file, { signal: controller.signal, parentDirectory: tmp })).rejects.toMatchObject({
        code: 'cancelled',
      });
      expect(readdirSync(tmp)).toEqual(['c.zip']);
    });
  });
});

describe('failure after many files were written', () => {
  it('should remove everything when a late entry contradicts its CRC, with writes still in flight', async () => {
    await withTempDir(async (tmp) => {
      const specs: ZipSpec[] = Array.from({ length: 300 }, (_, i) => ({
        name: `d${i % 7}/f${i}.txt`,
        data: Buffer.from(`file ${i}`),
      }));
      specs.push({ name: 'late.bin', data: randomBytes(2000), crc: 3 });
      const error = await extractRefused(tmp, buildZip(specs));
      expect(error).toMatchObject({ code: 'artifact_integrity_mismatch', details: { path: 'late.bin' } });
    });
  });
});

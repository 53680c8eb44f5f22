// Every ZIP entry is described twice: by its central-directory record and by the local header in front of
// its data. An archive that names or describes an entry one way in one and another way in the other shows
// different contents to tools that believe different copies (a classic way to slip a file past a check).
// Both are now compared, field by field, and a contradiction is an integrity contradiction like a bad
// CRC-32: fail-closed refuses the archive, record-and-continue records it and quarantines the entry.
// unzip -t, the reference, rejects each of these archives too.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';

const data = Buffer.from('the same words, again and again; the same words, again and again.\n'.repeat(20));

/** An archive of two entries whose first local header `patch` changes in place. */
function patched(patch: (archive: Buffer) => void, method: 0 | 8 = 8): Buffer {
  const archive = buildZip([
    { name: 'aaaa.txt', data, method },
    { name: 'other.txt', data: Buffer.from('fine') },
  ]);
  // The first entry's local header starts the archive: its name at 30, its method at 8, its CRC-32 at 14.
  patch(archive);
  return archive;
}

const CASES: Array<[string, Buffer, string, string]> = [
  [
    'another name',
    patched((zip) => zip.write('bbbb.txt', 30, 'latin1')),
    'name "aaaa.txt" (central directory)',
    'name "bbbb.txt" (local header)',
  ],
  [
    'another CRC-32',
    patched((zip) => zip.writeUInt32LE(0xdeadbeef, 14)),
    expect.stringMatching(/^CRC-32 [0-9a-f]{8} \(central directory\)$/) as unknown as string,
    'CRC-32 deadbeef (local header)',
  ],
  [
    'another compression method',
    patched((zip) => zip.writeUInt16LE(0, 8)),
    'compression method 8 (central directory)',
    'compression method 0 (local header)',
  ],
];

describe('local headers that contradict the central directory', () => {
  it.each(CASES)(
    'should refuse an entry whose local header gives %s, fail-closed',
    async (_label, bytes, declared, observed) => {
      await withTempDir(async (tmp) => {
        const file = join(tmp, 'two-faced.zip');
        writeFileSync(file, bytes);
        const error = await inspectArtifact(file).catch((e: unknown) => e);
        expect(error).toMatchObject({
          code: 'artifact_integrity_mismatch',
          details: { path: 'aaaa.txt', algorithm: 'local-header', declared, observed },
        });
        await expect(extractArtifact(file, { parentDirectory: tmp })).rejects.toMatchObject({
          code: 'artifact_integrity_mismatch',
          details: { algorithm: 'local-header' },
        });
      });
    },
  );

  it('should record the contradiction and quarantine the entry under record-and-continue', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'two-faced.zip');
      writeFileSync(file, CASES[0]![1]);
      const { inventory, coverage } = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
      expect(coverage.status).toBe('partial');
      expect(inventory.integrity_contradictions).toEqual([
        expect.objectContaining({
          path: 'aaaa.txt',
          algorithm: 'local-header',
          declared: 'name "aaaa.txt" (central directory)',
          observed: 'name "bbbb.txt" (local header)',
          trust: 'contradicted',
          quarantined: true,
        }),
      ]);
      expect(Object.fromEntries(inventory.entries.map((e) => [e.path, e.integrity]))).toEqual({
        'aaaa.txt': 'contradicted',
        'other.txt': 'verified',
      });
    });
  });

  it('should accept local headers that defer their CRC-32 and sizes to a data descriptor', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'descriptor.zip');
      writeFileSync(file, buildZip([{ name: 'streamed.txt', data, dataDescriptor: true }]));
      const { inventory } = await inspectArtifact(file);
      expect(inventory.integrity_contradictions).toEqual([]);
      expect(inventory.entries.map((e) => e.integrity)).toEqual(['verified']);
    });
  });

  skipUnless(toolsMissing('unzip'))('against unzip -t', () => {
    it.each(CASES)('should agree with unzip -t that an entry with %s is not intact', (_label, bytes) =>
      withTempDir((tmp) => {
        const file = join(tmp, 'two-faced.zip');
        writeFileSync(file, bytes);
        const reference = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
        expect(reference.status).not.toBe(0);
      }),
    );
  });
});

describe('a stored entry whose two sizes differ', () => {
  it('should be a size contradiction of that entry, which record-and-continue records', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'stored.zip');
      writeFileSync(
        file,
        buildZip([
          { name: 's.txt', data: Buffer.from('0123456789'), method: 0, declaredSize: 12 },
          { name: 'fine.txt', data: Buffer.from('fine'), method: 0 },
        ]),
      );
      // The whole archive was refused as malformed before, whatever the policy.
      await expect(inspectArtifact(file)).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 's.txt', algorithm: 'size', declared: '12 bytes' },
      });
      const { inventory } = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
      expect(inventory.integrity_contradictions).toEqual([
        expect.objectContaining({ path: 's.txt', algorithm: 'size', declared: '12 bytes' }),
      ]);
      expect(Object.fromEntries(inventory.entries.map((e) => [e.path, e.integrity]))).toEqual({
        's.txt': 'contradicted',
        'fine.txt': 'verified',
      });
    });
  });
});

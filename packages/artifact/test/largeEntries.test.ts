import { describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import { run } from './helpers/exec.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

// Entries above 1 MiB are streamed rather than read whole; these cases cover that path.
describe('large ZIP entries (streamed)', () => {
  const big = Buffer.concat([randomBytes(2 * 1024 * 1024), Buffer.alloc(1024 * 1024, 'a')]);

  it('should hash and extract stored and deflated entries as unzip does', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'big.zip');
      writeFileSync(
        file,
        buildZip([
          { name: 'stored.bin', data: big, method: 0 },
          { name: 'deflated.bin', data: big },
          { name: 'descriptor.bin', data: big, dataDescriptor: true },
        ]),
      );
      run('unzip', ['-tqq', file]);
      const { inventory } = await inspectArtifact(file);
      expect(inventory.entries.map((e) => [e.path, e.sha256, e.integrity])).toEqual(
        ['stored.bin', 'deflated.bin', 'descriptor.bin'].map((name) => [name, sha(big), 'verified']),
      );
      const { outputDirectory } = await extractArtifact(file, { parentDirectory: tmp });
      expect(sha(readFileSync(join(outputDirectory, 'deflated.bin')))).toBe(
        run('sh', ['-c', `unzip -p ${file} deflated.bin | sha256sum`]).slice(0, 64),
      );
    });
  });

  it.each([
    ['a declared size too small', { declaredSize: 1_500_000 }, 'size'],
    ['a declared size too large', { declaredSize: 4_000_000 }, 'size'],
    ['a bad CRC-32', { crc: 42 }, 'crc32'],
  ])('should catch %s while streaming and leave no file behind', async (_label, lie, algorithm) => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'lie.zip');
      writeFileSync(
        file,
        buildZip([
          { name: 'ok.txt', data: Buffer.from('ok') },
          { name: 'big.bin', data: big, ...lie },
        ]),
      );
      await expect(inspectArtifact(file)).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 'big.bin', algorithm },
      });
      await expect(extractArtifact(file, { parentDirectory: tmp })).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
      });
      expect(run('ls', ['-A', tmp]).trim().split('\n')).toEqual(['lie.zip']);
    });
  });
});

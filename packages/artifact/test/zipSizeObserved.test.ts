// An entry whose bytes contradict its declared size is a size contradiction, and its `observed` says how
// many bytes it holds: exactly that many when the entry was read to its end (it holds fewer than
// declared), "at least" that many only when reading stopped once it passed the declared size. Held
// against what unzip -p and Python's zipfile read from the same entries, in archives made by Info-ZIP's
// zip whose declared size (central directory and local header alike) is then changed.
import { expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';

/** Sets the uncompressed size of entry `name` to `size` in its central-directory record and local header. */
function declare(archive: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(archive);
  for (let at = out.indexOf('PK\x01\x02', 0, 'latin1'); at >= 0; at = out.indexOf('PK\x01\x02', at + 4, 'latin1')) {
    const length = out.readUInt16LE(at + 28);
    if (out.toString('latin1', at + 46, at + 46 + length) !== name) continue;
    out.writeUInt32LE(size, at + 24);
    out.writeUInt32LE(size, out.readUInt32LE(at + 42) + 22);
    return out;
  }
  throw new Error(`no entry ${name}`);
}

/** The bytes unzip -p writes for `name` (it exits non-zero for nothing here, but its count is what matters). */
function unzipBytes(archive: string, name: string): number {
  return spawnSync('unzip', ['-p', archive, name], { maxBuffer: 1 << 26 }).stdout.length;
}

/** The bytes Python's zipfile reads for `name`, or null when it refuses the entry. */
function pythonBytes(archive: string, name: string): number | null {
  const script =
    'import sys, zipfile\ntry: print(len(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2])))\nexcept Exception: print(-1)';
  const count = Number(execFileSync('python3', ['-c', script, archive, name], { encoding: 'utf8' }).trim());
  return count < 0 ? null : count;
}

const TEXT = Buffer.from('a line of text, the same again\n'.repeat(8));
const NOISE = randomBytes(3_000_000);

skipUnless(toolsMissing('zip', 'unzip', 'python3'))(
  'the observed size of an entry that contradicts its declared size',
  () => {
    // [label, entry, zip's options, declared size]: small entries are read whole, large ones streamed.
    const CASES: Array<[string, string, string[], number]> = [
      ['a small deflated entry declared larger', 'text.txt', [], 300],
      ['a small stored entry declared larger', 'text.txt', ['-0'], 300],
      ['a large streamed entry declared larger', 'noise.bin', [], 3_500_000],
    ];

    it.each(CASES)(
      'should give the exact count for %s, as unzip and Python read it',
      async (_label, name, options, size) => {
        await withTempDir(async (tmp) => {
          writeFileSync(join(tmp, 'text.txt'), TEXT);
          writeFileSync(join(tmp, 'noise.bin'), NOISE);
          const made = join(tmp, 'made.zip');
          execFileSync('zip', ['-q', ...options, made, name], { cwd: tmp });
          const file = join(tmp, 'declared.zip');
          writeFileSync(file, declare(readFileSync(made), name, size));
          const held = unzipBytes(file, name);
          expect(pythonBytes(file, name)).toBe(held);
          expect(held).toBeLessThan(size);
          const observed = `${held} bytes`;
          await expect(inspectArtifact(file)).rejects.toMatchObject({
            code: 'artifact_integrity_mismatch',
            message: expect.stringContaining(`observed ${observed}.`) as unknown as string,
            details: { path: name, algorithm: 'size', declared: `${size} bytes`, observed },
          });
          const { inventory } = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
          expect(inventory.integrity_contradictions.map((c) => [c.path, c.algorithm, c.declared, c.observed])).toEqual([
            [name, 'size', `${size} bytes`, observed],
          ]);
          await expect(extractArtifact(file, { parentDirectory: tmp })).rejects.toMatchObject({
            details: { path: name, algorithm: 'size', observed },
          });
        });
      },
    );

    it.each([
      ['a small deflated entry declared smaller', 'text.txt', 200],
      ['a large streamed entry declared smaller', 'noise.bin', 2_500_000],
    ])('should give a lower bound for %s, where reading stopped past the declared size', async (_label, name, size) => {
      await withTempDir(async (tmp) => {
        writeFileSync(join(tmp, 'text.txt'), TEXT);
        writeFileSync(join(tmp, 'noise.bin'), NOISE);
        const made = join(tmp, 'made.zip');
        execFileSync('zip', ['-q', made, name], { cwd: tmp });
        const file = join(tmp, 'declared.zip');
        writeFileSync(file, declare(readFileSync(made), name, size));
        const held = unzipBytes(file, name);
        const { inventory } = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
        const [contradiction] = inventory.integrity_contradictions;
        expect(contradiction).toMatchObject({ path: name, algorithm: 'size', declared: `${size} bytes` });
        const bound = /^at least (\d+) bytes$/.exec(contradiction!.observed);
        expect(bound).not.toBeNull();
        expect(Number(bound![1])).toBeGreaterThan(size);
        expect(Number(bound![1])).toBeLessThanOrEqual(held);
      });
    });
  },
);

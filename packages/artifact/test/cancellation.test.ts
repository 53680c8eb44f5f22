import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import { simpleAsar } from './helpers/asarWriter.js';

/** A signal that reads as aborted from its `after`-th check on: cancellation mid-work, deterministically. */
function abortsAfter(after: number): AbortSignal {
  let checks = 0;
  return {
    get aborted() {
      checks += 1;
      return checks > after;
    },
  } as AbortSignal;
}

const many = buildZip(
  Array.from({ length: 400 }, (_, i) => ({ name: `d${i % 9}/f${i}.txt`, data: Buffer.from(`entry ${i}`) })),
);
const asar = simpleAsar(
  Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.js`, Buffer.from(`module ${i}`)])),
);

describe('cancellation in the middle of the work', () => {
  it.each([
    ['ZIP', 'a.zip', many],
    ['ASAR', 'a.asar', asar],
  ])('should stop a %s inventory with cancelled', async (_label, name, bytes) => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, name), bytes);
      await expect(inspectArtifact(join(tmp, name), { signal: abortsAfter(100) })).rejects.toMatchObject({
        code: 'cancelled',
      });
    });
  });

  it.each([
    ['ZIP', 'a.zip', many],
    ['ASAR', 'a.asar', asar],
  ])('should stop a %s extraction with cancelled and remove what it wrote', async (_label, name, bytes) => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, name), bytes);
      const parent = join(tmp, 'out');
      mkdirSync(parent);
      await expect(
        extractArtifact(join(tmp, name), { parentDirectory: parent, signal: abortsAfter(150) }),
      ).rejects.toMatchObject({ code: 'cancelled' });
      expect(readdirSync(parent)).toEqual([]);
      // The same archive extracts completely when not cancelled, so the cut really was mid-way.
      const { result } = await extractArtifact(join(tmp, name), { parentDirectory: parent });
      expect(result.files.length).toBeGreaterThan(150);
    });
  });
});

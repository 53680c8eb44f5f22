/*
 * A selection that reaches into many nested containers looks them all up in one pass over the
 * container's directory (it scanned the whole directory once per nested container: selection ×
 * entries), and many paths inside one nested container are gathered without copying the list per path.
 */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { firstNamed, splitSelection } from '../src/extract/selection.js';
import { buildZip } from './helpers/zipWriter.js';
import { run } from './helpers/exec.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('issue 22: nested containers of a selection are found in one pass', () => {
  it('names each wanted item once, keeps the first of a name, and stops when all are found', () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({ name: `f${i % 2500}`, file: i % 7 !== 3, at: i }));
    const wanted = new Set(['f10', 'f17', 'f2499', 'f5', 'missing']);
    let named = 0;
    const found = firstNamed(
      items,
      wanted,
      (item) => item.file,
      (item) => {
        named += 1;
        return item.name;
      },
    );
    // One pass: every accepted item is named at most once (5 names against 3,000 items).
    expect(named).toBeLessThanOrEqual(items.filter((item) => item.file).length);
    // f5 and f2499 are files where they first appear; f10 and f17 are not (10 % 7 and 17 % 7 are 3), so
    // their next ones count, at 2510 and 2517.
    expect([...found].map(([name, item]) => [name, item.at]).sort()).toEqual(
      [
        ['f10', 2510],
        ['f17', 2517],
        ['f2499', 2499],
        ['f5', 5],
      ].sort(),
    );
    // Without a missing name the walk stops at the last one found (f17 at 2517 of 3,000): it names fewer
    // items than the 2,571 files of the whole list.
    named = 0;
    firstNamed(
      items,
      new Set(['f10', 'f17']),
      (item) => item.file,
      (item) => {
        named += 1;
        return item.name;
      },
    );
    expect(named).toBeLessThan(2517);
  });

  it('gathers thousands of paths inside one nested container in selection order', () => {
    const select = Array.from({ length: 5000 }, (_, i) => (i % 2 ? `lib/a.zip!/x/${i}` : `top/${i}`));
    const { direct, nested } = splitSelection(select);
    expect(direct).toHaveLength(2500);
    expect([...nested.keys()]).toEqual(['lib/a.zip']);
    expect(nested.get('lib/a.zip')).toEqual(select.filter((_, i) => i % 2).map((p) => p.slice('lib/a.zip!/'.length)));
  });

  it('extracts one file from each of 200 nested ZIPs among 3,000 entries', async () => {
    await withTempDir(async (tmp) => {
      const specs: Array<{ name: string; data: Buffer }> = [];
      for (let i = 0; i < 2800; i += 1) specs.push({ name: `plain/${i}.txt`, data: Buffer.from(`plain ${i}`) });
      for (let i = 0; i < 200; i += 1) {
        const inner = buildZip([
          { name: 'a.txt', data: Buffer.from(`inner ${i} a`) },
          { name: 'b.txt', data: Buffer.from(`inner ${i} b`) },
        ]);
        specs.push({ name: `nested/${i}.zip`, data: inner });
      }
      const archive = join(tmp, 'outer.zip');
      writeFileSync(archive, buildZip(specs));
      // Independent check of what the archive holds.
      expect(run('unzip', ['-Z1', archive]).trim().split('\n')).toHaveLength(3000);
      const select = Array.from({ length: 200 }, (_, i) => `nested/${i}.zip!/${i % 2 ? 'a' : 'b'}.txt`);
      const { outputDirectory, result } = await extractArtifact(archive, { parentDirectory: tmp, select });
      expect(result.files).toHaveLength(200);
      for (let i = 0; i < 200; i += 1) {
        const want = Buffer.from(`inner ${i} ${i % 2 ? 'a' : 'b'}`);
        const file = result.files.find((f) => f.path === select[i]);
        expect(file?.sha256).toBe(sha(want));
        expect(readFileSync(join(outputDirectory, 'nested', `${i}.zip!`, `${i % 2 ? 'a' : 'b'}.txt`))).toEqual(want);
      }
    });
  });
});

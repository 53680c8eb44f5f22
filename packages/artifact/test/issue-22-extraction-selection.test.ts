import { describe, expect, it } from '@jest/globals';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { extractArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { plan, selected } from '../src/extract/plan.js';
import type { PlannedEntry } from '../src/extract/plan.js';
import { buildZip } from './helpers/zipWriter.js';

function files(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

const entry = (path: string, kind: PlannedEntry<null>['kind'] = 'file'): PlannedEntry<null> => ({
  path,
  kind,
  linkTarget: null,
  linkFromRoot: false,
  executable: false,
  declaredSize: 1,
  compressedSize: 1,
  handle: null,
});

// Selections are matched by looking each entry's path and folders up, not by trying every selected
// path on every entry; what is selected must be exactly what the path rules say.
describe('extraction of many selected paths', () => {
  it('selects a path itself and everything below a selected folder (with or without its slash)', () => {
    const entries = ['a', 'a/b', 'a/b/c.txt', 'ab/c.txt', 'x/y/z.txt', 'x/y2/z.txt'].map((p) =>
      entry(p, p === 'a/b' || p === 'a' ? 'directory' : 'file'),
    );
    const chosen = (select: string[]): string[] => plan(entries, select).map((e) => e.path);
    expect(chosen(['a/b'])).toEqual(['a/b', 'a/b/c.txt']);
    expect(chosen(['a/'])).toEqual(['a/b', 'a/b/c.txt']);
    expect(chosen(['x/y/', 'ab/c.txt'])).toEqual(['ab/c.txt', 'x/y/z.txt']);
  });

  it('selects exactly what the path rules say when selected folders lie inside one another', () => {
    // Every path of depth 1 to 4 over a few names: folders within selected folders, and files
    // beside them, so that a lookup stopping early at any folder level would miss or add paths.
    const names = ['a', 'b', 'ab'];
    const paths: string[] = [];
    const grow = (prefix: string, depth: number): void => {
      for (const name of names) {
        const path = prefix === '' ? name : `${prefix}/${name}`;
        paths.push(`${path}/f`);
        if (depth < 4) grow(path, depth + 1);
      }
    };
    grow('', 1);
    const entries = paths.map((p) => entry(p));
    const selections = [
      ['a/b/ab/a/f', 'a/b/'],
      ['b', 'b/a/ab/b'],
      ['ab/ab/ab/'],
      ['a/a/f', 'a/a/a/a/f', 'ab/b'],
      ['b/ab', 'b/ab/a/b', 'b/ab/a/b/f', 'a/f'],
    ];
    for (const select of selections) {
      const expected = paths.filter((p) => selected(p, select));
      expect(expected.length).toBeGreaterThan(0);
      expect(plan(entries, select).map((e) => e.path)).toEqual(expected);
    }
  });

  it('names the first selected path, in the order given, that matches nothing', () => {
    const entries = ['a.txt', 'b/c.txt'].map((p) => entry(p));
    let refusal: unknown = null;
    try {
      plan(entries, ['b', 'missing-1', 'a.txt', 'missing-2']);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({
      code: 'not_found',
      details: { path: 'missing-1', reason: 'no-such-entry' },
      remediation: expect.stringContaining('a folder selects everything below it'),
    });
  });

  it('extracts exactly 400 of 1,200 files named one by one, and a folder', async () => {
    await withTempDir(async (tmp) => {
      const specs = Array.from({ length: 1200 }, (_, i) => ({
        name: `d${i % 30}/e${i % 7}/f${i}.txt`,
        data: Buffer.from(`file ${i}\n`),
      }));
      const zip = join(tmp, 'many.zip');
      writeFileSync(zip, buildZip(specs));
      const named = specs.filter((_, i) => i % 3 === 0).map((s) => s.name);
      const folder = specs.filter((s) => s.name.startsWith('d1/')).map((s) => s.name);
      const { outputDirectory, result } = await extractArtifact(zip, {
        parentDirectory: tmp,
        select: [...named, 'd1/'],
      });
      const expected = [...new Set([...named, ...folder])].sort();
      expect(files(outputDirectory)).toEqual(expected);
      expect(result.files.map((f) => f.path)).toEqual(expected);
    });
  });
});

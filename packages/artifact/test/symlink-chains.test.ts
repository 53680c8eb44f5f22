// Symlinks that reach outside their archive or folder only through another symlink of it are flagged
// like those that point outside themselves; chains are resolved within the container, loops end.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';

/** A tree of links: the escaping ones direct or through others, those staying inside, a loop. */
function makeLinks(tree: string): void {
  mkdirSync(join(tree, 'd'), { recursive: true });
  writeFileSync(join(tree, 'd', 'file'), 'inside\n');
  symlinkSync('/etc', join(tree, 'b')); // outside itself
  symlinkSync('b', join(tree, 'a')); // outside through b
  symlinkSync('a', join(tree, 'z')); // outside through a, then b
  symlinkSync('../b/passwd', join(tree, 'd', 'through-dir')); // a path under b: outside through b
  symlinkSync('b/passwd', join(tree, 'd', 'beside')); // d/b/passwd, which is no link: inside
  symlinkSync('..', join(tree, 'up')); // outside itself (the root's parent)
  symlinkSync('../up', join(tree, 'd', 'up-link')); // outside through up
  symlinkSync('d/up-link/x', join(tree, 'via-up')); // through d/up-link, then up: outside through up
  symlinkSync('d/file', join(tree, 'safe')); // inside
  symlinkSync('loop-b', join(tree, 'loop-a')); // a loop, never outside
  symlinkSync('loop-a', join(tree, 'loop-b'));
}

const unsafe = (limitations: ReadonlyArray<{ kind: string; scope?: string | undefined; message: string }>) =>
  limitations
    .filter((l) => l.kind === 'unsafe-path')
    .map((l) => [l.scope, /through symlink "([^"]+)"/u.exec(l.message)?.[1] ?? null])
    .sort((x, y) => String(x[0]).localeCompare(String(y[0])));

const EXPECTED = [
  ['a', 'b'],
  ['b', null],
  ['d/through-dir', 'b'],
  ['d/up-link', 'up'],
  ['up', null],
  ['via-up', 'up'],
  ['z', 'b'],
];

describe('symlink chains', () => {
  it('should flag every link of a ZIP made by zip(1) that reaches outside, through other links or itself', async () => {
    await withTempDir(async (dir) => {
      const tree = join(dir, 'tree');
      mkdirSync(tree);
      makeLinks(tree);
      const archive = join(dir, 'links.zip');
      execFileSync('zip', ['-q', '-r', '-y', archive, '.'], { cwd: tree });
      const { limitations, coverage } = await inspectArtifact(archive);
      expect(unsafe(limitations)).toEqual(EXPECTED);
      expect(coverage.status).toBe('partial');
    });
  });

  it('should flag them alike in a folder', async () => {
    await withTempDir(async (dir) => {
      makeLinks(dir);
      const { limitations } = await inspectArtifact(dir);
      expect(unsafe(limitations)).toEqual(EXPECTED);
    });
  });
});

import { expect, it } from '@jest/globals';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { skipUnless, withTempDir } from '@rea/test-helpers';
import { run } from './helpers/exec.js';

// Debian's Go source package ships the archive/zip test corpus (valid, odd and broken archives).
const corpus = '/usr/share/go-1.19/src/archive/zip/testdata';
const present = existsSync(corpus);
const names = present ? readdirSync(corpus).sort() : [];

function unzipAccepts(file: string): boolean {
  try {
    run('unzip', ['-tqq', file]);
    return true;
  } catch {
    return false;
  }
}

function sha256sums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const text = run('sh', ['-c', 'find . -type f -print0 | xargs -0 -r sha256sum'], dir);
  for (const line of text.trim().split('\n').filter(Boolean))
    out[line.slice(66).replace(/^\.\//, '')] = line.slice(0, 64);
  return out;
}

skipUnless(present ? null : `${corpus} is absent (install golang-1.19-src)`)('the Go archive/zip test corpus', () => {
  it.each(names)('should inventory %s with a result or a typed error, never a crash', async (name) => {
    const file = join(corpus, name);
    const outcome = await inspectArtifact(file).catch((error: unknown) => error);
    if (isReaError(outcome)) {
      expect(['unsupported_target', 'artifact_integrity_mismatch']).toContain(outcome.code);
      return;
    }
    expect(outcome).toHaveProperty('inventory');
    const { inventory } = outcome as Awaited<ReturnType<typeof inspectArtifact>>;
    if (inventory.format !== 'zip' || !unzipAccepts(file)) return;
    const listed = run('unzip', ['-Z1', file])
      .trim()
      .split('\n')
      .map((n) => n.replace(/\/$/, ''));
    expect(inventory.entries.map((e) => e.path).sort()).toEqual(listed.sort());
    await withTempDir(async (tmp) => {
      const reference = join(tmp, 'unzip');
      mkdirSync(reference);
      try {
        run('unzip', ['-qq', '-o', file, '-d', reference]);
      } catch {
        // unzip cannot materialize it (e.g. a name that is both a file and a directory): neither may we.
        await expect(extractArtifact(file, { parentDirectory: tmp })).rejects.toMatchObject({
          code: 'unsupported_target',
        });
        return;
      }
      const expected = sha256sums(reference);
      const hashed = Object.fromEntries(
        inventory.entries.filter((e) => e.kind === 'file' && e.sha256 !== null).map((e) => [e.path, e.sha256]),
      );
      for (const [path, hash] of Object.entries(hashed))
        if (path in expected) expect([path, hash]).toEqual([path, expected[path]]);
      const extracted = await extractArtifact(file, { parentDirectory: tmp }).catch((error: unknown) => error);
      if (isReaError(extracted)) return;
      const ours = sha256sums((extracted as { outputDirectory: string }).outputDirectory);
      for (const [path, hash] of Object.entries(ours)) expect([path, hash]).toEqual([path, expected[path]]);
    });
  });
});

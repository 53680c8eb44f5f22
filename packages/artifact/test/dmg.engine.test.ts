// DMG inventory with the real macOS hdiutil, on an image made by `hdiutil create` from a fixture tree.
// Gated: elsewhere the suite is skipped with the printed reason (dmgStandIn.test.ts covers the same
// code against a scripted stand-in there).
import { expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, lstatSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectArtifact } from '@rea/artifact';
import { skipUnless, withTempDir } from '@rea/test-helpers';
import { has } from './helpers/exec.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

function gate(): string | null {
  if (process.platform !== 'darwin') return `DMG engine suite needs macOS hdiutil (this host is ${process.platform})`;
  if (!has('hdiutil')) return 'DMG engine suite needs hdiutil on PATH';
  return null;
}

/** Regular files under `root` with their SHA-256, read with node:fs alone. */
function files(root: string, rel = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(join(root, rel))) {
    const path = rel === '' ? name : `${rel}/${name}`;
    const info = lstatSync(join(root, path));
    if (info.isDirectory()) for (const [k, v] of files(root, path)) out.set(k, v);
    else if (info.isFile()) out.set(path, sha(readFileSync(join(root, path))));
  }
  return out;
}

/** The mount points hdiutil lists right now. */
function attachedMounts(): string {
  return execFileSync('hdiutil', ['info'], { encoding: 'utf8' });
}

skipUnless(gate())('DMG inventory with the real hdiutil', () => {
  it('should list the files of an image made by hdiutil create, with their hashes, and detach it', async () => {
    await withTempDir(async (tmp) => {
      const tree = join(tmp, 'tree');
      mkdirSync(join(tree, 'Tool.app', 'Contents'), { recursive: true });
      writeFileSync(join(tree, 'Tool.app', 'Contents', 'Info.plist'), '<plist/>');
      writeFileSync(join(tree, 'notes.txt'), 'notes');
      writeFileSync(join(tree, 'blob.bin'), Buffer.alloc(300_000, 9));
      const image = join(tmp, 'fixture.dmg');
      execFileSync('hdiutil', ['create', '-quiet', '-fs', 'HFS+', '-format', 'UDZO', '-srcfolder', tree, image]);
      const { subject, inventory } = await inspectArtifact(image);
      expect(subject).toMatchObject({ format: 'dmg', sha256: sha(readFileSync(image)) });
      const observed = new Map(
        inventory.entries.filter((e) => e.kind === 'file' && !e.path.startsWith('.')).map((e) => [e.path, e.sha256]),
      );
      expect(observed).toEqual(files(tree));
      // Detached: no mount point of ours is left in hdiutil's list.
      expect(attachedMounts()).not.toMatch(/rea-dmg-/);
    });
  });
});

// An end-of-central-directory record gives the directory's offset, its entry count and its size. REA
// reads the directory from its offset by its count, as unzip and Go's archive/zip do; a size that
// disagrees with the records read is stated, since a reader that trusts the size (Python's zipfile)
// looks for the directory elsewhere. Held against unzip -t, which reports the same disagreement and by
// how much, and zipinfo -v, which gives the declared size: Go's test-baddirsz.zip, every other file of
// Go's corpus, and archives made by Info-ZIP's zip whose declared size is then changed.
import { expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';

const corpus = '/usr/share/go-1.19/src/archive/zip/testdata';
const KIND = 'archive-directory-size';

/** What unzip -t and zipinfo -v say of the directory's size: declared, and as the records take it, when they differ. */
function reference(file: string): { declared: number; actual: number } | null {
  const tested = spawnSync('unzip', ['-tq', file], { encoding: 'utf8' });
  const text = `${tested.stdout}${tested.stderr}`.replace(/\s+/g, ' ');
  // unzip: "reported length of central directory is -16 bytes too long": declared minus actual.
  const excess = /reported length of central directory is (-?\d+) bytes too long/.exec(text);
  if (excess === null) return null;
  const info = spawnSync('zipinfo', ['-v', file], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');
  const declared = Number(/The central directory is (\d+) \(/.exec(info)![1]);
  return { declared, actual: declared - Number(excess[1]) };
}

function directorySizeNotes(limitations: readonly { kind: string; message: string }[]): string[] {
  return limitations.filter((l) => l.kind === KIND).map((l) => l.message);
}

skipUnless(toolsMissing('unzip', 'zipinfo', 'zip'))('a central directory whose declared size is wrong', () => {
  skipUnless(existsSync(corpus) ? null : `${corpus} is absent (install golang-1.19-src)`)("Go's corpus", () => {
    it('should state the sizes of test-baddirsz.zip as unzip and zipinfo give them, inventoried and extracted', async () => {
      const file = join(corpus, 'test-baddirsz.zip');
      const expected = reference(file);
      // zipinfo: 152 bytes declared; unzip: 16 bytes too few, so the records take 168.
      expect(expected).not.toBeNull();
      const { declared, actual } = expected!;
      const inventory = await inspectArtifact(file);
      const notes = directorySizeNotes(inventory.limitations);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toContain(`a central directory of ${declared} bytes`);
      expect(notes[0]).toContain(`records take ${actual} bytes`);
      // The archive is still read as unzip reads it (which exits non-zero for the size it compensates).
      const listed = spawnSync('unzip', ['-Z1', file], { encoding: 'utf8' }).stdout.trim().split('\n');
      expect(inventory.inventory.entries.map((e) => e.path).sort()).toEqual(listed.sort());
      await withTempDir(async (tmp) => {
        const { limitations } = await extractArtifact(file, { parentDirectory: tmp });
        expect(directorySizeNotes(limitations)).toEqual(notes);
      });
    });

    it('should state it for exactly the files of the corpus whose size unzip finds wrong', async () => {
      const stated: string[] = [];
      const found: string[] = [];
      for (const name of readdirSync(corpus)
        .filter((n) => n.endsWith('.zip'))
        .sort()) {
        const file = join(corpus, name);
        if (reference(file) !== null) found.push(name);
        const outcome = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' }).catch(() => null);
        if (outcome !== null && directorySizeNotes(outcome.limitations).length > 0) stated.push(name);
      }
      expect(found).toEqual(['test-baddirsz.zip']);
      expect(stated).toEqual(found);
    });
  });

  it.each([
    ['smaller', -10],
    ['larger', 10],
  ])('should state a declared size %s than the records of an archive made by zip', async (_label, delta) => {
    await withTempDir(async (tmp) => {
      const source = join(tmp, 'source');
      execFileSync('mkdir', ['-p', source]);
      for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(join(source, name), `${name}\n`.repeat(50));
      const made = join(tmp, 'made.zip');
      execFileSync('zip', ['-q', made, 'a.txt', 'b.txt', 'c.txt'], { cwd: source });
      expect(reference(made)).toBeNull();
      expect(directorySizeNotes((await inspectArtifact(made)).limitations)).toEqual([]);
      const bytes = readFileSync(made);
      const end = bytes.lastIndexOf(Buffer.from('PK\x05\x06', 'latin1'));
      bytes.writeUInt32LE(bytes.readUInt32LE(end + 12) + delta, end + 12);
      const file = join(tmp, 'resized.zip');
      writeFileSync(file, bytes);
      const { declared, actual } = reference(file)!;
      expect(declared - actual).toBe(delta);
      const notes = directorySizeNotes((await inspectArtifact(file)).limitations);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toContain(`a central directory of ${declared} bytes, but its 3 records take ${actual} bytes`);
    });
  });
});

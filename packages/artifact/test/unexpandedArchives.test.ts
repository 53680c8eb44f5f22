// An archive inspect_artifact does not open (tar, gzip, xz, bzip2, ar, …) is listed as the one file it
// is, and says so: what it holds was not listed. Inputs are made at test time by the tools that make them.
import { expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { extractArtifact, inspectArtifact } from '@rea/artifact';

skipUnless(toolsMissing('tar', 'gzip', 'xz', 'bzip2', 'ar'))('archives inspect_artifact does not open', () => {
  it('should list a tar, gzip, xz, bzip2 or ar archive as one file and say its contents were not listed', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'a.txt'), 'inside the archive\n');
      execFileSync('tar', ['-cf', 'a.tar', 'a.txt'], { cwd: dir });
      execFileSync('sh', ['-c', 'gzip -k a.tar && xz -k a.tar && bzip2 -k a.tar && ar rc a.ar a.txt'], { cwd: dir });
      const expected: Record<string, string> = {
        'a.tar': 'tar',
        'a.tar.gz': 'gzip',
        'a.tar.xz': 'xz',
        'a.tar.bz2': 'bzip2',
        'a.ar': 'ar',
      };
      for (const [name, type] of Object.entries(expected)) {
        const result = await inspectArtifact(join(dir, name));
        expect(result.inventory).toMatchObject({ format: 'file', file_type: type, entry_count: 1 });
        const note = result.limitations.filter((l) => l.kind === 'archive-not-expanded');
        expect(note).toHaveLength(1);
        // The article as the name is spoken: an ar, an xz ("ex-zed"), a tar.
        expect(note[0]!.message).toContain(`${name} is ${type === 'ar' || type === 'xz' ? 'an' : 'a'} ${type} archive`);
      }
      // A file that is no archive has no such note.
      const plain = await inspectArtifact(join(dir, 'a.txt'));
      expect(plain.limitations.filter((l) => l.kind === 'archive-not-expanded')).toEqual([]);
    });
  });
});

skipUnless(toolsMissing('tar', 'gzip'))('extracting an archive extract_artifact does not read', () => {
  it('should refuse it naming what the file is and which tool lists it', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'a.txt'), 'inside the archive\n');
      execFileSync('sh', ['-c', 'tar -czf a.tgz a.txt'], { cwd: dir });
      const error = await extractArtifact(join(dir, 'a.tgz'), { parentDirectory: dir }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'unsupported_target',
        details: { format: 'gzip', reason: 'not-an-archive' },
      });
      expect((error as Error).message).toContain('(it is a gzip file)');
      expect((error as { remediation: string }).remediation).toContain('inspect_artifact lists any file');
    });
  });
});

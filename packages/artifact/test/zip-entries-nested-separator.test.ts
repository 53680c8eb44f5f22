// An entry whose own name holds "!/" reads as an entry of a nested container: openZipEntries judges it
// as inspect_artifact and extraction do (nested-separator), in its listing and when asked to read it.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectArtifact, openZipEntries } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';

describe('openZipEntries and a name holding "!/"', () => {
  it('should flag it nested-separator and refuse to read it, as inspect_artifact flags it', async () => {
    await withTempDir(async (dir) => {
      const tree = join(dir, 'tree');
      // zip(1) stores the folder "app.zip!" and its file as "app.zip!/evil.txt".
      mkdirSync(join(tree, 'app.zip!'), { recursive: true });
      writeFileSync(join(tree, 'app.zip!', 'evil.txt'), 'not in a nested archive\n');
      writeFileSync(join(tree, 'ok.txt'), 'ok\n');
      const archive = join(dir, 'names.zip');
      execFileSync('zip', ['-q', '-X', archive, 'app.zip!/evil.txt', 'ok.txt'], { cwd: tree });

      const { limitations } = await inspectArtifact(archive);
      const flagged = limitations.filter((l) => l.kind === 'unsafe-path').map((l) => l.scope);
      expect(flagged).toEqual(['app.zip!/evil.txt']);

      const zip = await openZipEntries(archive);
      try {
        expect(zip.entries.map((e) => [e.path, e.problem])).toEqual([
          ['app.zip!/evil.txt', 'nested-separator'],
          ['ok.txt', null],
        ]);
        await expect(
          zip.read(['app.zip!/evil.txt'], { maxEntryBytes: 1024, maxTotalBytes: 1024 }),
        ).rejects.toMatchObject({
          code: 'unsupported_target',
          details: { reason: 'unsafe-path', problem: 'nested-separator' },
        });
        const { contents } = await zip.read(['ok.txt'], { maxEntryBytes: 1024, maxTotalBytes: 1024 });
        expect(contents.get('ok.txt')!.bytes.toString()).toBe('ok\n');
      } finally {
        zip.close();
      }
    });
  });
});

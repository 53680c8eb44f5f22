// The readable output of a command that leaves files on the machine says where: `rea extract-artifact`
// names its output directory (only `--format json` did, as local.output_directory).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';
import { REA_BIN } from './httpEntry.js';

describe('rea extract-artifact, readable output', () => {
  it('should name the directory the files were extracted to', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'note.txt'), 'extracted text\n');
      execFileSync('zip', ['-q', '-j', join(dir, 'one.zip'), join(dir, 'note.txt')]);
      const result = await run(REA_BIN, ['extract-artifact', join(dir, 'one.zip'), '--quiet']);
      expect(result.code).toBe(0);
      const line = /^ {2}output directory: (.+)$/m.exec(result.stdout);
      expect(line).not.toBeNull();
      const output = line![1]!;
      try {
        expect(readFileSync(join(output, 'note.txt'), 'utf8')).toBe('extracted text\n');
      } finally {
        rmSync(output, { recursive: true, force: true });
      }
    });
  }, 60_000);
});

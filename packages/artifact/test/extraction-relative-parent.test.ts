import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { extractArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';

// A parent directory may be given relative to the working directory, as a command line passes it.
describe('extraction under a relative parent directory', () => {
  it('writes every file under that directory and reports its absolute path', async () => {
    await withTempDir(async (tmp) => {
      const zip = join(tmp, 'two.zip');
      writeFileSync(
        zip,
        buildZip([
          { name: 'a.txt', data: Buffer.from('one\n') },
          { name: 'dir/b.txt', data: Buffer.from('two\n') },
        ]),
      );
      const parent = relative(process.cwd(), tmp);
      expect(isAbsolute(parent)).toBe(false);
      const outcome = await extractArtifact(zip, { parentDirectory: parent });
      expect(isAbsolute(outcome.outputDirectory)).toBe(true);
      expect(dirname(outcome.outputDirectory)).toBe(tmp);
      expect(readdirSync(outcome.outputDirectory).sort()).toEqual(['a.txt', 'dir']);
      expect(readFileSync(join(outcome.outputDirectory, 'dir/b.txt'), 'utf8')).toBe('two\n');
    });
  });
});

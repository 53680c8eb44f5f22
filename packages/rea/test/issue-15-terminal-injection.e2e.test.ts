import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from '../../artifact/test/helpers/zipWriter.js';
import { run } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');

/** Entry names that try to drive the terminal: colours, the bell, a faked line, C1 CSI, DEL, bidi. */
const HOSTILE = [
  'colour-\u001b[31mRED\u001b[0m-\u0007.txt',
  'fake\n  coverage:    complete\nx.txt',
  'title-\u001b]0;owned\u0007.txt',
  'c1-\u009b2J-\u007f.txt',
  'invoice-\u202eexe.txt',
  'carriage\rreturn.txt',
];

/** How each name must read on the terminal. */
const SHOWN: Record<string, string> = {
  [HOSTILE[0]!]: 'colour-\\e[31mRED\\e[0m-\\x07.txt',
  [HOSTILE[1]!]: 'fake\\n  coverage:    complete\\nx.txt',
  [HOSTILE[2]!]: 'title-\\e]0;owned\\x07.txt',
  [HOSTILE[3]!]: 'c1-\\x9b2J-\\x7f.txt',
  [HOSTILE[4]!]: 'invoice-\\u{202e}exe.txt',
  [HOSTILE[5]!]: 'carriage\\rreturn.txt',
};

/** Anything a terminal would act on, other than the newlines REA itself prints between lines. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('rea: names from a target cannot drive the terminal', () => {
  it('should escape control characters in human output of inspect-artifact and analyze, and keep JSON exact', async () => {
    await withTempDir(async (dir) => {
      // Two archives of three names each, so that every name is within what the readable report shows.
      for (const [index, names] of [HOSTILE.slice(0, 3), HOSTILE.slice(3)].entries()) {
        const zip = join(dir, `hostile-${index}.zip`);
        writeFileSync(zip, buildZip(names.map((name) => ({ name, data: Buffer.from('x') }))));
        for (const args of [
          ['inspect-artifact', zip],
          ['analyze', zip],
        ]) {
          const result = await run(bin, args);
          expect({ args, code: result.code }).toEqual({ args, code: 0 });
          expect(CONTROL.exec(result.stdout)).toBeNull();
          expect(CONTROL.exec(result.stderr)).toBeNull();
          // A faked line stays inside its entry's line: only REA's own coverage line starts a line.
          expect(result.stdout.match(/^\s*coverage:/gm)).toHaveLength(1);
          for (const name of names) expect(result.stdout).toContain(SHOWN[name]);
        }
        const json = await run(bin, ['inspect-artifact', zip, '--format', 'json']);
        const record = JSON.parse(json.stdout) as { normalized_result: { entries: Array<{ path: string }> } };
        expect(record.normalized_result.entries.map((e) => e.path).sort()).toEqual([...names].sort());
      }
    });
  });

  it('should escape a hostile name quoted in an error message', async () => {
    await withTempDir(async (dir) => {
      const missing = join(dir, 'no\u001b[2Jsuch\nfile');
      const result = await run(bin, ['inspect-artifact', missing]);
      expect(result.code).toBe(3);
      expect(CONTROL.exec(result.stderr)).toBeNull();
      expect(result.stderr).toContain('no\\e[2Jsuch\\nfile');
    });
  });
});

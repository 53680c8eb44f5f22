// On the command line every invocation is one session, so a comparison cannot refer to Evidence an
// earlier invocation retained: it takes each side as the whole record a command printed with
// --format json, given to its JSON flag as @file.json. Real archives built with `zip`, the real
// `rea` executable, and a record altered after it was written (its id no longer matches: refused).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTempDir } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bin.cjs');

describe('rea compare-artifacts from records written by earlier invocations', () => {
  it('compares two inventories given as @file.json, and refuses a record altered after it was written', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'same.txt'), 'unchanged\n');
      writeFileSync(join(dir, 'edited.txt'), 'version 1\n');
      execFileSync('zip', ['-q', '-X', 'old.zip', 'same.txt', 'edited.txt'], { cwd: dir });
      writeFileSync(join(dir, 'edited.txt'), 'version 2, longer\n');
      writeFileSync(join(dir, 'added.txt'), 'new\n');
      execFileSync('zip', ['-q', '-X', 'new.zip', 'same.txt', 'edited.txt', 'added.txt'], { cwd: dir });
      const rea = (args: string[]) => run(bin, args, { cwd: dir });
      for (const side of ['old', 'new']) {
        const printed = await rea(['inspect-artifact', `${side}.zip`, '--format', 'json', '--quiet']);
        expect(printed.code).toBe(0);
        writeFileSync(join(dir, `${side}.json`), printed.stdout);
      }
      const compared = await rea([
        'compare-artifacts',
        '--left',
        '@old.json',
        '--right',
        '@new.json',
        '--format',
        'json',
      ]);
      expect({ code: compared.code, stderr: compared.stderr }).toEqual({ code: 0, stderr: '' });
      const record = JSON.parse(compared.stdout) as {
        normalized_result: Record<string, Array<{ path: string }>> & { left_evidence_id: string };
      };
      const paths = (key: string) => record.normalized_result[key]!.map((e) => e.path);
      expect(paths('added')).toEqual(['added.txt']);
      expect(paths('changed')).toEqual(['edited.txt']);
      expect(paths('unchanged')).toEqual(['same.txt']);
      expect(paths('removed')).toEqual([]);
      expect(record.normalized_result.left_evidence_id).toBe(
        (JSON.parse(readFileSync(join(dir, 'old.json'), 'utf8')) as { evidence_id: string }).evidence_id,
      );
      // The help says how: records from files, one session per invocation.
      const help = await rea(['compare-artifacts', '--help']);
      expect(help.stdout.replace(/\s+/g, ' ')).toContain('rea compare-artifacts --left @left.json --right @right.json');
      // A record changed after it was written is not the Evidence its id names.
      const altered = JSON.parse(readFileSync(join(dir, 'old.json'), 'utf8')) as { confidence: string };
      altered.confidence = 'inferred';
      writeFileSync(join(dir, 'altered.json'), JSON.stringify(altered));
      const refused = await rea(['compare-artifacts', '--left', '@altered.json', '--right', '@new.json']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('rea: error [evidence_integrity_mismatch] in compare_artifacts');
      expect(refused.stderr).toContain('(the left record) does not hash to its id');
      expect(refused.stderr).not.toMatch(/\n\s+at /);
      // A file that is not Evidence at all: the refusal says which side, and where in it.
      writeFileSync(join(dir, 'other.json'), '{"name":"not evidence"}');
      const notEvidence = await rea(['compare-artifacts', '--left', '@old.json', '--right', '@other.json']);
      expect(notEvidence.code).toBe(2);
      expect(notEvidence.stderr).toContain('The right record does not match the Evidence v2 schema.');
      expect(notEvidence.stderr).toContain('  - right.evidence_id: ');
    });
  });
});

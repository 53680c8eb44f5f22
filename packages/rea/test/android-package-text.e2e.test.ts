// The readable output of `rea inspect-android-package <apk>`: the package's key facts, then the outline
// of the whole result, with no fact said twice and no value left blank. The unit that is the package
// itself has the name "" (the tool's output schema), which is shown as "" rather than as nothing. Runs
// the built `rea` executable on a sample APK of Debian's androguard package.
import { expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { skipUnless } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';
import { REA_BIN } from './httpEntry.js';

const APK = '/usr/share/doc/androguard/examples/tests/a2dp.Vol_137.apk';

interface Result {
  format: string;
  units: Array<{ name: string; kind: string }>;
  signature_verification: Array<{ unit: string }> | null;
}

skipUnless(existsSync(APK) ? null : `the androguard sample ${APK} is not installed`)(
  'rea inspect-android-package, readable output',
  () => {
    it('should state the format once and show the unit of the package itself by its name ""', async () => {
      const json = await run(REA_BIN, ['inspect-android-package', APK, '--format', 'json', '--quiet']);
      expect(json.code).toBe(0);
      const result = (JSON.parse(json.stdout) as { normalized_result: Result }).normalized_result;
      // What the lines below are checked against: one APK, one unit (the package itself, named "").
      expect(result.format).toBe('apk');
      expect(result.units).toEqual([expect.objectContaining({ name: '', kind: 'apk' })]);
      const verified = result.signature_verification ?? [];
      expect(verified.length).toBeGreaterThan(0);

      const text = await run(REA_BIN, ['inspect-android-package', APK, '--quiet']);
      expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
      const lines = text.stdout.split('\n');
      expect(lines.filter((line) => /^\s*format:/.test(line))).toEqual(['    format: apk']);
      // A key with a value shows it: no line ends with the colon and space of an empty one.
      expect(lines.filter((line) => /:\s+$/.test(line))).toEqual([]);
      expect(lines.filter((line) => /^\s*name:/.test(line)).map((line) => line.trim())).toContain('name: ""');
      expect(lines.filter((line) => /^\s*unit:/.test(line)).map((line) => line.trim())).toEqual(
        verified.map(() => 'unit: ""'),
      );
    }, 60_000);
  },
);

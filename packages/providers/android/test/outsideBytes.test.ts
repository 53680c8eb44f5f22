// An APK with bytes before its ZIP archive or after its end record is read (manifest, resources,
// certificates), but its signatures are not checked: the schemes find what they cover from the file's
// ends, and apksigner refuses such a file. The unmodified file verifies, as a control.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectAndroidPackageTool } from '@rea/provider-android';
import { withTempDir } from '@rea/test-helpers';
import { SAMPLES, runTool } from './support.js';

interface Report {
  units: { manifest: { package: string } | null }[];
  signature_verification: { scheme: string; status: string; reason: string | null }[] | null;
}

const APK = `${SAMPLES}/signing/TestActivity_signed_both.apk`;

describe('an APK with bytes outside its ZIP archive', () => {
  it('should be read, with its signatures not checked and why', async () => {
    const bytes = readFileSync(APK);
    const plain = await runTool<Report>(inspectAndroidPackageTool, { path: APK });
    const statuses = (report: Report) => report.signature_verification!.map((v) => [v.scheme, v.status]);
    expect(statuses(plain.normalized_result)).toEqual(
      expect.arrayContaining([
        ['v1', 'verified'],
        ['v2', 'verified'],
      ]),
    );
    await withTempDir(async (tmp) => {
      const cases = {
        prefixed: {
          bytes: Buffer.concat([Buffer.alloc(4096, 0x23), bytes]),
          says: '4096 bytes before its ZIP archive',
        },
        appended: {
          bytes: Buffer.concat([bytes, Buffer.from('x'.repeat(100))]),
          says: '100 bytes after its ZIP archive',
        },
      };
      for (const [name, { bytes: variant, says }] of Object.entries(cases)) {
        const path = join(tmp, `${name}.apk`);
        writeFileSync(path, variant);
        const report = await runTool<Report>(inspectAndroidPackageTool, { path });
        expect(report.normalized_result.units[0]!.manifest!.package).toBe(
          plain.normalized_result.units[0]!.manifest!.package,
        );
        const verification = report.normalized_result.signature_verification!;
        expect(verification.map((v) => v.scheme)).toEqual(
          plain.normalized_result.signature_verification!.map((v) => v.scheme),
        );
        for (const scheme of verification) {
          expect(scheme.status).toBe('unsupported');
          expect(scheme.reason).toContain(says);
        }
        const limitation = report.limitations.find((l) => l.kind === 'archive-outside-bytes');
        expect(limitation?.message).toContain(says);
      }
    });
  });
});

// An APK whose end-of-central-directory record misstates the directory's size: REA reads the directory
// from its declared start by its declared entry count, as unzip does, and says so as inspect_artifact
// says it of a plain ZIP (`archive-directory-size`, both sizes); its signatures are not checked, since
// apksigner, which reads the directory by its declared size, refuses the file. Held against unzip -t
// (by how much the size is wrong), zipinfo -v (the declared size), unzip -Z1 (the entries) and
// apksigner, on androguard's sample APK whose end record is changed here; the unchanged file, as a
// control, states nothing and verifies.
import { expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectArtifact } from '@rea/artifact';
import { inspectAndroidPackageTool } from '@rea/provider-android';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { SAMPLES, runTool } from './support.js';

interface Report {
  units: { manifest: { package: string } | null; entries?: unknown }[];
  signature_verification: { scheme: string; status: string; reason: string | null }[] | null;
}

const APK = `${SAMPLES}/signing/TestActivity_signed_both.apk`;
const KIND = 'archive-directory-size';

/** What unzip -t and zipinfo -v say of the directory's size, declared and as its records take it; null when they agree. */
function reference(file: string): { declared: number; actual: number } | null {
  const tested = spawnSync('unzip', ['-tq', file], { encoding: 'utf8' });
  const text = `${tested.stdout}${tested.stderr}`.replace(/\s+/g, ' ');
  // "reported length of central directory is -10 bytes too long": declared minus actual.
  const excess = /reported length of central directory is (-?\d+) bytes too long/.exec(text);
  if (excess === null) return null;
  const info = spawnSync('zipinfo', ['-v', file], { encoding: 'utf8' }).stdout.replace(/\s+/g, ' ');
  const declared = Number(/The central directory is (\d+) \(/.exec(info)![1]);
  return { declared, actual: declared - Number(excess[1]) };
}

/** Whether apksigner accepts the file (it reads the directory by the size its end record declares). */
function apksignerVerifies(file: string): boolean {
  return spawnSync('apksigner', ['verify', file], { encoding: 'utf8' }).status === 0;
}

skipUnless(toolsMissing('unzip', 'zipinfo', 'apksigner'))(
  'an APK whose end record misstates its directory size',
  () => {
    it.each([
      ['smaller', -10],
      ['larger', 10],
    ])(
      'should state a declared size %s than the records, as for a ZIP, and check no signature',
      async (_label, delta) => {
        const bytes = readFileSync(APK);
        expect(reference(APK)).toBeNull();
        expect(apksignerVerifies(APK)).toBe(true);
        const plain = await runTool<Report>(inspectAndroidPackageTool, { path: APK });
        expect(plain.limitations.filter((l) => l.kind === KIND)).toEqual([]);
        expect(plain.normalized_result.signature_verification!.map((v) => [v.scheme, v.status])).toEqual(
          expect.arrayContaining([
            ['v1', 'verified'],
            ['v2', 'verified'],
          ]),
        );
        await withTempDir(async (tmp) => {
          const end = bytes.lastIndexOf(Buffer.from('PK\x05\x06', 'latin1'));
          const changed = Buffer.from(bytes);
          changed.writeUInt32LE(changed.readUInt32LE(end + 12) + delta, end + 12);
          const path = join(tmp, 'resized.apk');
          writeFileSync(path, changed);
          const { declared, actual } = reference(path)!;
          expect(declared - actual).toBe(delta);
          expect(apksignerVerifies(path)).toBe(false);

          const report = await runTool<Report>(inspectAndroidPackageTool, { path });
          const notes = report.limitations.filter((l) => l.kind === KIND).map((l) => l.message);
          expect(notes).toHaveLength(1);
          const count = spawnSync('unzip', ['-Z1', path], { encoding: 'utf8' }).stdout.trim().split('\n').length;
          expect(notes[0]).toContain(
            `a central directory of ${declared} bytes, but its ${count} records take ${actual} bytes`,
          );
          // The same sizes as inspect_artifact states for the same file.
          const artifactNotes = (await inspectArtifact(path)).limitations.filter((l) => l.kind === KIND);
          expect(artifactNotes).toHaveLength(1);
          expect(artifactNotes[0]!.message).toContain(
            `${declared} bytes, but its ${count} records take ${actual} bytes`,
          );
          // The package is still read, as from the unchanged file.
          expect(report.normalized_result.units[0]!.manifest!.package).toBe(
            plain.normalized_result.units[0]!.manifest!.package,
          );
          const verification = report.normalized_result.signature_verification!;
          expect(verification.map((v) => v.scheme)).toEqual(
            plain.normalized_result.signature_verification!.map((v) => v.scheme),
          );
          for (const scheme of verification) {
            expect(scheme.status).toBe('unsupported');
            expect(scheme.reason).toContain(`declares a central directory of ${declared} bytes`);
          }
        });
      },
      120_000,
    );
  },
);

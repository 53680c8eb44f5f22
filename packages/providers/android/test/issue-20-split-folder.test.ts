// A folder of split APKs (as `adb pull` of an installed app gives them) is analysed as a set: a real
// signed base APK from androguard's samples and a config split compiled by aapt and signed by
// apksigner here, each unit's manifest checked against `aapt dump badging`, its classes against
// `dexdump`, and its signatures against `apksigner verify`.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectAndroidPackageTool, searchAndroidClassesTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const APKSIG = `${SAMPLES}/signing/apksig`;
const BASE = `${APKSIG}/golden-aligned-v1v2v3-out.apk`;
let dir: string;
let folder: string;

interface Report {
  format: string;
  units: {
    name: string;
    manifest: { package: string | null; split: string | null; version_code: number | null } | null;
    native_libraries: { abi: string; libraries: string[] }[];
    signing_block: { schemes: string[] } | null;
  }[];
  signature_verification: { unit: string; scheme: string; status: string }[];
}

/** apksigner's verdict per scheme on `apk` for devices from API 24 (where v1 is not needed). */
function apksigner(apk: string): Record<string, string> {
  const run = spawnSync('apksigner', ['verify', '-v', '--min-sdk-version', '24', apk], { encoding: 'utf8' });
  const verdicts = [...run.stdout.matchAll(/^Verified using (v[23]) scheme .*: (true|false)$/gm)];
  return Object.fromEntries(verdicts.map((m) => [m[1]!, m[2] === 'true' ? 'verified' : 'not verified']));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-split-'));
  const work = join(dir, 'work');
  mkdirSync(join(work, 'lib', 'arm64-v8a'), { recursive: true });
  writeFileSync(
    join(work, 'AndroidManifest.xml'),
    '<?xml version="1.0" encoding="utf-8"?>\n<manifest package="android.appsecurity.cts.tinyapp" split="config.arm64_v8a"/>\n',
  );
  writeFileSync(join(work, 'lib', 'arm64-v8a', 'libdemo.so'), 'not really a library');
  const split = join(work, 'split.apk');
  execFileSync('aapt', ['package', '-f', '-M', join(work, 'AndroidManifest.xml'), '-F', split]);
  execFileSync('zip', ['-q', split, 'lib/arm64-v8a/libdemo.so'], { cwd: work });
  folder = join(dir, 'app');
  mkdirSync(folder);
  copyFileSync(BASE, join(folder, 'base.apk'));
  execFileSync('apksigner', [
    'sign',
    ...['--key', `${APKSIG}/ec-p256.pk8`, '--cert', `${APKSIG}/ec-p256.x509.pem`, '--min-sdk-version', '24'],
    ...['--out', join(folder, 'split_config.arm64_v8a.apk'), split],
  ]);
  writeFileSync(join(folder, 'notes.txt'), 'not an APK');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a folder of split APKs', () => {
  it('lists every APK as a unit with its manifest, classes and verified signing', async () => {
    const evidence = await runTool<Report>(inspectAndroidPackageTool, { path: folder });
    const { normalized_result: r, limitations } = evidence;
    // The folder's digest is that of `sha256sum` over its APKs in name order.
    const sums = execFileSync('sha256sum', ['base.apk', 'split_config.arm64_v8a.apk'], { cwd: folder });
    expect((evidence as unknown as { subject: { format: string; sha256: string } }).subject).toMatchObject({
      format: 'directory',
      sha256: createHash('sha256').update(sums).digest('hex'),
    });
    expect(limitations.filter((l) => l.kind === 'entry-unreadable')).toEqual([]);
    expect(r.format).toBe('apk-set');
    const badging = (apk: string) =>
      /^package: name='([^']*)' versionCode='(\d*)'/m.exec(output('aapt', ['dump', 'badging', apk]))!;
    const base = badging(join(folder, 'base.apk'));
    const split = badging(join(folder, 'split_config.arm64_v8a.apk'));
    expect(output('aapt', ['dump', 'badging', join(folder, 'split_config.arm64_v8a.apk')])).toMatch(
      /split='config\.arm64_v8a'/,
    );
    expect(r.units.map((u) => [u.name, u.manifest?.package, u.manifest?.split, u.manifest?.version_code])).toEqual([
      ['base.apk', base[1], null, Number(base[2])],
      ['split_config.arm64_v8a.apk', split[1], 'config.arm64_v8a', null],
    ]);
    expect(r.units[1]!.native_libraries).toEqual([{ abi: 'arm64-v8a', libraries: ['libdemo.so'] }]);
    // Each APK's signing block read and each scheme verified, as apksigner judges it.
    for (const unit of r.units) {
      const ours = r.signature_verification.filter(
        (v) => v.unit === unit.name && v.scheme !== 'v1' && v.scheme !== 'v3.1',
      );
      const theirs = apksigner(join(folder, unit.name));
      expect(Object.keys(theirs).sort()).toEqual(['v2', 'v3']);
      expect(ours.map((v) => [v.scheme, v.status === 'verified' ? 'verified' : 'not verified'])).toEqual(
        Object.entries(theirs).sort(),
      );
      expect(unit.signing_block?.schemes).toEqual(['v2', 'v3']);
    }
    expect(Object.values(apksigner(join(folder, 'base.apk')))).toEqual(['verified', 'verified']);
  }, 120_000);

  it('reads the classes of the APKs in the folder, as dexdump does', async () => {
    const dex = join(dir, 'base.dex');
    writeFileSync(dex, execFileSync('unzip', ['-p', BASE, 'classes.dex']));
    const expected = [...output('dexdump', [dex]).matchAll(/^ {2}Class descriptor {2}: '(.*)'$/gm)].map((m) => m[1]!);
    expect(expected.length).toBeGreaterThan(0);
    const { normalized_result } = await runTool<{ classes: { descriptor: string }[] }>(searchAndroidClassesTool, {
      path: folder,
    });
    expect(normalized_result.classes.map((c) => c.descriptor)).toEqual(expected.sort());
  }, 120_000);

  it('reports an APK of the folder that cannot be read, and reads the others', async () => {
    const partial = join(dir, 'partial');
    mkdirSync(partial);
    copyFileSync(BASE, join(partial, 'base.apk'));
    writeFileSync(join(partial, 'split_broken.apk'), 'not a zip');
    mkdirSync(join(partial, 'split_folder.apk'));
    const {
      normalized_result: r,
      limitations,
      coverage,
    } = await runTool<Report>(inspectAndroidPackageTool, {
      path: partial,
    });
    expect(r.units.map((u) => u.name)).toEqual(['base.apk']);
    expect(limitations.filter((l) => l.kind === 'entry-unreadable').map((l) => l.scope)).toEqual([
      'split_broken.apk',
      'split_folder.apk',
    ]);
    expect(coverage.status).toBe('partial');
  }, 120_000);

  it('refuses an empty folder, a folder with no APK and one whose APKs cannot be read, typed', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    await expect(runTool(inspectAndroidPackageTool, { path: empty })).rejects.toMatchObject({
      code: 'unsupported_target',
      details: { reason: 'empty-folder' },
    });
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'readme.txt'), 'hello');
    await expect(runTool(inspectAndroidPackageTool, { path: other })).rejects.toMatchObject({
      code: 'unsupported_target',
      details: { reason: 'no-apk' },
    });
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'base.apk'), 'not a zip');
    await expect(runTool(inspectAndroidPackageTool, { path: broken })).rejects.toMatchObject({
      code: 'unsupported_target',
      details: { reason: 'no-readable-apk' },
    });
  }, 120_000);
});

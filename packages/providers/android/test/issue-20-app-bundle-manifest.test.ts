// An app bundle built at test time: aapt2 compiles one manifest and its resources in the protocol
// buffer form a bundle module holds (`--proto-format`) and in binary form. The bundle's module must
// report what `aapt2 dump badging` reads from the same protobuf files, and the same manifest as the
// binary build of the same sources.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { isReaError } from '@rea/evidence';
import { inspectAndroidPackageTool } from '../src/index.js';
import { parseProtoXml } from '../src/format/protoXml.js';
import { protoFields } from '../src/format/protobuf.js';
import { SAMPLES, output, runTool } from './support.js';

const source = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'bundle');
const framework = `${SAMPLES}/tests/lineageos_nexus5_framework-res.apk`;
let dir: string;
let aab: string;
let protoApk: string;
let binaryApk: string;

interface Manifest {
  package: string;
  version_code: number;
  version_name: string;
  min_sdk: number;
  target_sdk: number;
  uses_permissions: { name: string; element: string; max_sdk: number | null; required: boolean }[];
  application: { label: string; labels: { locale: string; text: string }[]; debuggable: boolean };
  launchable_activities: string[];
}
interface Report {
  format: string;
  units: {
    name: string;
    kind: string;
    manifest: Manifest | null;
    resources: { locales: string[]; strings: number } | null;
    dex: { path: string; classes: number }[];
  }[];
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-aab-'));
  const flat = join(dir, 'res.flata');
  execFileSync('aapt2', ['compile', '--dir', join(source, 'res'), '-o', flat]);
  const link = (out: string, proto: boolean) =>
    execFileSync('aapt2', [
      'link',
      ...(proto ? ['--proto-format'] : []),
      '-o',
      out,
      '-I',
      framework,
      '--manifest',
      join(source, 'AndroidManifest.xml'),
      flat,
    ]);
  protoApk = join(dir, 'module.apk');
  binaryApk = join(dir, 'binary.apk');
  link(protoApk, true);
  link(binaryApk, false);
  // The bundle layout: <module>/manifest/AndroidManifest.xml, <module>/resources.pb, <module>/dex/.
  const tree = join(dir, 'bundle');
  mkdirSync(join(tree, 'base', 'manifest'), { recursive: true });
  mkdirSync(join(tree, 'base', 'dex'));
  execFileSync('unzip', ['-q', protoApk, '-d', join(dir, 'module')]);
  copyFileSync(join(dir, 'module', 'AndroidManifest.xml'), join(tree, 'base', 'manifest', 'AndroidManifest.xml'));
  copyFileSync(join(dir, 'module', 'resources.pb'), join(tree, 'base', 'resources.pb'));
  copyFileSync(`${SAMPLES}/tests/Test.dex`, join(tree, 'base', 'dex', 'classes.dex'));
  writeFileSync(join(tree, 'BundleConfig.pb'), Buffer.alloc(0));
  aab = join(dir, 'app.aab');
  execFileSync('zip', ['-q', '-r', '-X', aab, 'BundleConfig.pb', 'base'], { cwd: tree });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('app bundle manifests (protocol buffer XML)', () => {
  it('reports the module as aapt2 dump badging reads the same protobuf manifest and resources', async () => {
    const { normalized_result: r, limitations } = await runTool<Report>(inspectAndroidPackageTool, { path: aab });
    expect(r.format).toBe('aab');
    expect(r.units.map((u) => [u.name, u.kind])).toEqual([['base', 'aab-module']]);
    const m = r.units[0]!.manifest!;
    const badging = output('aapt2', ['dump', 'badging', protoApk]);
    const one = (re: RegExp) => re.exec(badging)?.[1] ?? null;
    expect(m.package).toBe(one(/^package: name='([^']*)'/m));
    expect(String(m.version_code)).toBe(one(/versionCode='([^']*)'/));
    expect(m.version_name).toBe(one(/versionName='([^']*)'/));
    expect(String(m.min_sdk)).toBe(one(/^sdkVersion:'([^']*)'/m));
    expect(String(m.target_sdk)).toBe(one(/^targetSdkVersion:'([^']*)'/m));
    const permissions = [
      ...badging.matchAll(/^(uses-permission(?:-sdk-23)?): name='([^']*)'(?: maxSdkVersion='(\d+)')?$/gm),
    ];
    // aapt2 lists a permission declared with android:required="false" again as optional-permission.
    const optional = new Set([...badging.matchAll(/^optional-permission: name='([^']*)'/gm)].map((p) => p[1]));
    expect(m.uses_permissions).toEqual(
      permissions.map((p) => ({
        name: p[2],
        element: p[1],
        max_sdk: p[3] ? Number(p[3]) : null,
        required: !optional.has(p[2]),
      })),
    );
    const labels = [...badging.matchAll(/^application-label(?:-([a-zA-Z-]+))?:'(.*)'$/gm)];
    expect(m.application.label).toBe(one(/^application-label:'(.*)'$/m));
    expect([...m.application.labels].sort((a, b) => a.locale.localeCompare(b.locale))).toEqual(
      labels.map((l) => ({ locale: l[1] ?? '', text: l[2] })).sort((a, b) => a.locale.localeCompare(b.locale)),
    );
    expect(m.application.debuggable).toBe(/^application-debuggable$/m.test(badging));
    expect(m.launchable_activities).toEqual([one(/^launchable-activity: name='([^']*)'/m)]);
    expect(r.units[0]!.resources?.locales).toEqual(['fr']);
    expect(r.units[0]!.dex.map((d) => d.path)).toEqual(['base/dex/classes.dex']);
    expect(limitations.map((l) => l.kind)).not.toContain('manifest-protobuf');
    expect(limitations.filter((l) => /^manifest|^resources/.test(l.kind))).toEqual([]);
  });

  it('decodes the protobuf manifest into the same model as the binary build of the same sources', async () => {
    const bundle = (await runTool<Report>(inspectAndroidPackageTool, { path: aab })).normalized_result;
    const binary = (await runTool<Report>(inspectAndroidPackageTool, { path: binaryApk })).normalized_result;
    expect(binary.units[0]!.manifest).not.toBeNull();
    expect(bundle.units[0]!.manifest).toEqual(binary.units[0]!.manifest);
  });

  it('reads negative int32 varints and refuses truncated or foreign bytes as malformed', () => {
    // Field 6, varint -1 (ten bytes, two's complement), as protobuf encodes a negative int32.
    const minusOne = Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect(protoFields(minusOne, 'test')[0]!.low32 | 0).toBe(-1);
    const manifest = execFileSync('unzip', ['-p', protoApk, 'AndroidManifest.xml'], { maxBuffer: 1 << 20 });
    const malformedOf = (bytes: Buffer) => {
      try {
        parseProtoXml(bytes);
        return null;
      } catch (error) {
        return isReaError(error) ? error.details?.reason : error;
      }
    };
    expect(malformedOf(manifest.subarray(0, manifest.length - 7))).toBe('malformed');
    expect(malformedOf(Buffer.from('<manifest/>'))).toBe('malformed');
  });

  it('never throws anything but a typed error on mutated protobuf manifests', () => {
    const manifest = execFileSync('unzip', ['-p', protoApk, 'AndroidManifest.xml'], { maxBuffer: 1 << 20 });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(manifest.length - 1), fc.nat(255)), { maxLength: 8 }), (edits) => {
        const bytes = Buffer.from(manifest);
        for (const [at, value] of edits) bytes[at] = value;
        try {
          parseProtoXml(bytes);
        } catch (error) {
          if (!isReaError(error)) throw error;
        }
      }),
      { numRuns: 300 },
    );
  });
});

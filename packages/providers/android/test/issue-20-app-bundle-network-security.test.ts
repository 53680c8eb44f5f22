// The network security configuration of an app bundle module: aapt2 compiles one set of sources in the
// protocol buffer form a bundle module holds (`--proto-format`, res/xml/… as protobuf XML) and in binary
// form; the module must report the configuration the binary APK reports (which the manifest-flags test
// checks against aapt), read from the module's own res/xml entry.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectAndroidPackageTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const source = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'nsc');
let dir: string;
let aab: string;
let binaryApk: string;

interface Report {
  units: {
    manifest: { application: { network_security_config: string | null } } | null;
    network_security_config: { path: string; domains: unknown[] } | null;
  }[];
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-aab-nsc-'));
  const flat = join(dir, 'res.flata');
  execFileSync('aapt2', ['compile', '--dir', join(source, 'res'), '-o', flat]);
  const link = (out: string, proto: boolean) =>
    execFileSync('aapt2', [
      'link',
      ...(proto ? ['--proto-format'] : []),
      '-o',
      out,
      '-I',
      `${SAMPLES}/tests/lineageos_nexus5_framework-res.apk`,
      '--manifest',
      join(source, 'AndroidManifest.xml'),
      flat,
    ]);
  const protoApk = join(dir, 'module.apk');
  binaryApk = join(dir, 'binary.apk');
  link(protoApk, true);
  link(binaryApk, false);
  const module = join(dir, 'module');
  execFileSync('unzip', ['-q', protoApk, '-d', module]);
  const tree = join(dir, 'bundle');
  mkdirSync(join(tree, 'base', 'manifest'), { recursive: true });
  copyFileSync(join(module, 'AndroidManifest.xml'), join(tree, 'base', 'manifest', 'AndroidManifest.xml'));
  copyFileSync(join(module, 'resources.pb'), join(tree, 'base', 'resources.pb'));
  const xml = output('unzip', ['-Z1', protoApk])
    .split('\n')
    .filter((p) => p.startsWith('res/xml'));
  for (const p of xml) {
    mkdirSync(dirname(join(tree, 'base', p)), { recursive: true });
    copyFileSync(join(module, p), join(tree, 'base', p));
  }
  writeFileSync(join(tree, 'BundleConfig.pb'), Buffer.alloc(0));
  aab = join(dir, 'app.aab');
  execFileSync('zip', ['-q', '-r', '-X', aab, 'BundleConfig.pb', 'base'], { cwd: tree });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('app bundle network security configuration', () => {
  it('is read from the module as the binary build of the same sources reads it', async () => {
    const bundle = await runTool<Report>(inspectAndroidPackageTool, { path: aab });
    const binary = (await runTool<Report>(inspectAndroidPackageTool, { path: binaryApk })).normalized_result;
    const config = binary.units[0]!.network_security_config;
    expect(config?.domains.length).toBeGreaterThan(0);
    const unit = bundle.normalized_result.units[0]!;
    expect(unit.manifest?.application.network_security_config).toBe(config!.path);
    expect(unit.network_security_config).toEqual(config);
    expect(bundle.limitations.map((l) => l.kind)).not.toContain('network-security-config-missing');
  });
});

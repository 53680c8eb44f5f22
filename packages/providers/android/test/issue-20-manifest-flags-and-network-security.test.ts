// An application compiled by aapt at test time (against the framework resources androguard ships):
// its flags, its label in every locale and its network security configuration, as aapt reads them.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectAndroidPackageTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const source = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'nsc');
let dir: string;
let apk: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-nsc-'));
  apk = join(dir, 'nsc.apk');
  const framework = `${SAMPLES}/tests/lineageos_nexus5_framework-res.apk`;
  execFileSync('aapt', [
    'package',
    '-f',
    '-M',
    join(source, 'AndroidManifest.xml'),
    '-S',
    join(source, 'res'),
    '-I',
    framework,
    '-F',
    apk,
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Scope {
  domains: { name: string; include_subdomains: boolean }[];
  cleartext_permitted: boolean | null;
}
interface Result {
  units: {
    manifest: {
      application: {
        label: string;
        labels: { locale: string; text: string }[];
        debuggable: boolean;
        allow_backup: boolean;
        uses_cleartext_traffic: boolean | null;
        network_security_config: string | null;
      };
      components: { name: string; exported_declared: boolean | null; exported: boolean }[];
    };
    network_security_config: { path: string; base: Scope | null; domains: Scope[] } | null;
  }[];
}

it('reads application flags, per-locale labels and the network security configuration as aapt does', async () => {
  const badging = output('aapt', ['dump', 'badging', apk]);
  const tree = output('aapt', ['dump', 'xmltree', apk, 'AndroidManifest.xml']);
  const labels = [...badging.matchAll(/^application-label(?:-([a-zA-Z-]+))?:'(.*)'$/gm)].map((m) => ({
    locale: m[1] ?? '',
    text: m[2]!,
  }));
  const flag = (name: string) => {
    const m = new RegExp(`A: android:${name}\\(0x[0-9a-f]+\\)=\\(type 0x12\\)0x([0-9a-f]+)`).exec(tree);
    return m === null ? null : m[1] !== '0';
  };
  const nscRef = /A: android:networkSecurityConfig\(0x[0-9a-f]+\)=@(0x[0-9a-f]+)/.exec(tree)![1]!;
  const nscPath = new RegExp(`resource ${nscRef} [^\\n]*\\n[^\\n]*"(res/xml[^"]*)"`).exec(
    output('aapt', ['dump', '--values', 'resources', apk]),
  )?.[1];
  const nscTree = output('aapt', ['dump', 'xmltree', apk, nscPath!]);
  const cleartext = [
    ...nscTree.matchAll(
      /E: (base-config|domain-config) \(line=\d+\)\n\s+A: cleartextTrafficPermitted=\(type 0x12\)0x([0-9a-f]+)/g,
    ),
  ].map((m) => [m[1], m[2] !== '0'] as const);
  const domains = [
    ...nscTree.matchAll(
      /E: domain \(line=\d+\)\n\s+A: includeSubdomains=\(type 0x12\)0x([0-9a-f]+)[^\n]*\n\s+C: "(.*)"/g,
    ),
  ].map((m) => ({
    name: m[2]!,
    include_subdomains: m[1] !== '0',
  }));

  const { normalized_result } = await runTool<Result>(inspectAndroidPackageTool, { path: apk });
  const unit = normalized_result.units[0]!;
  const app = unit.manifest.application;
  expect(app.label).toBe(labels.find((l) => l.locale === '')!.text);
  expect([...app.labels].sort((a, b) => a.locale.localeCompare(b.locale))).toEqual(
    labels.sort((a, b) => a.locale.localeCompare(b.locale)),
  );
  expect(app.debuggable).toBe(flag('debuggable'));
  expect(app.allow_backup).toBe(flag('allowBackup'));
  expect(app.uses_cleartext_traffic).toBe(flag('usesCleartextTraffic'));
  expect(app.network_security_config).toBe(nscPath);
  expect(unit.manifest.components[0]).toMatchObject({
    exported_declared: flag('exported'),
    exported: flag('exported'),
  });
  const nsc = unit.network_security_config!;
  expect(nsc.path).toBe(nscPath);
  expect(nsc.base?.cleartext_permitted).toBe(cleartext.find(([k]) => k === 'base-config')![1]);
  expect(nsc.domains.map((d) => d.cleartext_permitted)).toEqual(
    cleartext.filter(([k]) => k === 'domain-config').map(([, v]) => v),
  );
  expect(nsc.domains.flatMap((d) => d.domains)).toEqual(domains);
});

// The androguard package's sample APK and DEX files, decoded by this package and checked against the
// reference tools run at test time: aapt (manifests), dexdump (classes, methods, bytecode), openssl
// (JAR signature certificates).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DexFile, disassemble, inspectAndroidPackageTool } from '../src/index.js';
import { protectionOf } from '../src/model/manifest.js';
import { SAMPLES, output, runTool } from './support.js';

interface Unit {
  manifest: {
    package: string;
    version_code: number | null;
    version_name: string | null;
    min_sdk: number | null;
    target_sdk: number | null;
    uses_permissions: { name: string; required: boolean }[];
    install_location: string | null;
    application: { label: string | null };
    launchable_activities: string[];
  };
  v1_signers: { path: string; certificates: { sha256: string; serial: string }[] }[];
}
interface Report {
  units: Unit[];
  signing_block: { schemes: string[]; signers: { scheme: string; certificates: { sha256: string }[] }[] } | null;
}

const APKS = [
  'tests/a2dp.Vol_137.apk',
  'tests/com.teleca.jamendo_35.apk',
  'tests/com.politedroid_4.apk',
  'tests/com.test.intent_filter.apk',
  'tests/com.example.android.tvleanback.apk',
  'tests/hello-world.apk',
  'android/TestsAndroguard/bin/TestActivity.apk',
  'android/abcore/app-prod-debug.apk',
  'signing/apksig/debuggable-resource.apk',
].map((p) => `${SAMPLES}/${p}`);

/** The uses-permission names the manifest declares, as aapt's XML tree shows them (badging adds implied ones). */
function declaredPermissions(apk: string): string[] {
  const tree = output('aapt', ['dump', 'xmltree', apk, 'AndroidManifest.xml']);
  return [
    ...tree.matchAll(/E: uses-permission(?:-sdk-23)? \(line=\d+\)\n\s+A: android:name\(0x01010003\)="([^"]*)"/g),
  ].map((m) => m[1]!);
}

function badging(apk: string) {
  const text = output('aapt', ['dump', 'badging', apk]);
  const one = (re: RegExp) => re.exec(text)?.[1] ?? null;
  return {
    package: one(/^package: name='([^']*)'/m),
    versionCode: one(/^package: .*versionCode='([^']*)'/m),
    versionName: one(/^package: .*versionName='([^']*)'/m),
    sdk: one(/^sdkVersion:'([^']*)'/m),
    targetSdk: one(/^targetSdkVersion:'([^']*)'/m),
    permissions: declaredPermissions(apk),
    label: one(/^application-label:'([^']*)'/m),
    launchable: one(/^launchable-activity: name='([^']*)'/m),
    installLocation: one(/^install-location:'([^']*)'/m),
    // aapt lists a permission declared with android:required="false" again as optional-permission.
    optional: [...text.matchAll(/^optional-permission: name='([^']*)'/gm)].map((m) => m[1]!),
  };
}

describe('manifests against aapt dump badging', () => {
  it.each(APKS)('%s', async (apk) => {
    const expected = badging(apk);
    const { normalized_result } = await runTool<Report>(inspectAndroidPackageTool, { path: apk });
    const m = normalized_result.units[0]!.manifest;
    expect(m.package).toBe(expected.package);
    expect(m.version_code === null ? null : String(m.version_code)).toBe(expected.versionCode || null);
    expect(m.version_name ?? '').toBe(expected.versionName ?? '');
    if (expected.sdk !== null) expect(String(m.min_sdk)).toBe(expected.sdk);
    if (expected.targetSdk !== null) expect(String(m.target_sdk)).toBe(expected.targetSdk);
    expect([...new Set(m.uses_permissions.map((p) => p.name))].sort()).toEqual(
      [...new Set(expected.permissions)].sort(),
    );
    expect(m.install_location).toBe(expected.installLocation);
    expect(
      m.uses_permissions
        .filter((p) => !p.required)
        .map((p) => p.name)
        .sort(),
    ).toEqual(expected.optional.sort());
    if (expected.label !== null) expect(m.application.label).toBe(expected.label);
    if (expected.launchable !== null) expect(m.launchable_activities).toContain(expected.launchable);
  });
});

/** androguard's table of the permissions AOSP's framework manifest declares at an API level, by name. */
const AOSP_PERMISSIONS = '/usr/lib/python3/dist-packages/androguard/core/api_specific_resources/aosp_permissions';

describe('declared permissions against AOSP’s framework manifest', () => {
  const framework = `${SAMPLES}/tests/lineageos_nexus5_framework-res.apk`;
  const table = `${AOSP_PERMISSIONS}/permissions_25.json`;
  it('should name each permission’s protectionLevel as the framework manifest of its API level spells it', async () => {
    // The sample is LineageOS's framework (API 25); androguard's table holds AOSP's declarations at API
    // 25, with protectionLevel as written in that manifest (`signature|privileged|development`).
    expect(badging(framework).sdk).toBe('25');
    const aosp = (
      JSON.parse(readFileSync(table, 'utf8')) as { permissions: Record<string, { protectionLevel: string }> }
    ).permissions;
    const { normalized_result } = await runTool<{
      units: Array<{
        manifest: { permissions: Array<{ name: string; protection_level: string; protection: string }> };
      }>;
    }>(inspectAndroidPackageTool, { path: framework, verify_signatures: false });
    const declared = normalized_result.units[0]!.manifest.permissions;
    const compared = declared.filter((p) => aosp[p.name] !== undefined);
    // LineageOS adds a few of its own; nearly all are AOSP's.
    expect(compared.length).toBeGreaterThan(340);
    const tokens = (text: string) => text.split('|').sort();
    const differing = compared
      .filter((p) => tokens(p.protection).join('|') !== tokens(aosp[p.name]!.protectionLevel).join('|'))
      .map((p) => `${p.name}: ${p.protection_level} -> ${p.protection}, AOSP ${aosp[p.name]!.protectionLevel}`);
    expect(differing).toEqual([]);
    // Their flags cover more than one base type and several flags, the raw value stays beside the name.
    const names = new Set(compared.flatMap((p) => tokens(p.protection)));
    for (const name of ['normal', 'dangerous', 'signature', 'privileged', 'development', 'appop', 'pre23', 'installer'])
      expect(names).toContain(name);
    expect(declared.find((p) => p.protection_level === '0x12')?.protection).toBe('signature|privileged');
  });

  it('should keep a base type or flag the platform does not name as a hex number', () => {
    expect(protectionOf(0x4)).toBe('internal');
    expect(protectionOf(0x7)).toBe('0x7');
    expect(protectionOf(0x40000012)).toBe('signature|privileged|0x40000000');
    expect(protectionOf(null)).toBeNull();
  });
});

/** dexdump's names for switch tables and array data inside the code. */
const PAYLOADS = new Set(['packed-switch-data', 'sparse-switch-data', 'array-data']);

/** Per class in class_defs order: descriptor and its methods as name+type, parsed from dexdump. */
function dexdumpClasses(dex: string): { descriptor: string; methods: string[]; mnemonics: string[][] }[] {
  const text = output('dexdump', ['-d', dex]);
  const classes: { descriptor: string; methods: string[]; mnemonics: string[][] }[] = [];
  let section = '';
  let name = '';
  for (const line of text.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^ {2}Class descriptor {2}: '(.*)'$/.exec(line)))
      classes.push({ descriptor: m[1]!, methods: [], mnemonics: [] });
    else if ((m = /^ {2}(Static fields|Instance fields|Direct methods|Virtual methods) /.exec(line))) section = m[1]!;
    else if (section.endsWith('methods') && (m = /^ {6}name {10}: '(.*)'$/.exec(line))) name = m[1]!;
    else if (section.endsWith('methods') && (m = /^ {6}type {10}: '(.*)'$/.exec(line))) {
      classes.at(-1)!.methods.push(`${name}${m[1]}`);
      classes.at(-1)!.mnemonics.push([]);
    } else if ((m = /\|[0-9a-f]{4}: ([a-z0-9/-]+)/.exec(line)) && section.endsWith('methods')) {
      if (!PAYLOADS.has(m[1]!)) classes.at(-1)!.mnemonics.at(-1)!.push(m[1]!);
    }
  }
  return classes;
}

const DEXES = ['tests/okhttp.d8.038.dex', 'tests/okhttp.dx.039.dex', 'android/TestsAndroguard/bin/classes.dex'].map(
  (p) => `${SAMPLES}/${p}`,
);

describe('DEX files against dexdump', () => {
  it.each(DEXES)('%s: classes, methods and every instruction mnemonic', (path) => {
    const expected = dexdumpClasses(path);
    const dex = new DexFile(readFileSync(path));
    expect(dex.classDefs.size).toBe(expected.length);
    for (let i = 0; i < dex.classDefs.size; i++) {
      const def = dex.classDef(i);
      expect(dex.type(def.classIdx)).toBe(expected[i]!.descriptor);
      const data = dex.classData(def.classDataOff);
      const methods = [...data.directMethods, ...data.virtualMethods];
      expect(
        methods.map((m) => {
          const ref = dex.method(m.index);
          return `${ref.name}(${ref.proto.parameters.join('')})${ref.proto.returnType}`;
        }),
      ).toEqual(expected[i]!.methods);
      methods.forEach((m, k) => {
        if (m.codeOff === 0) return;
        const code = dex.code(m.codeOff);
        const listing = disassemble(dex, code.insnsOff, code.insnsSize, Infinity);
        const mnemonics = listing.instructions.map((x) => x.mnemonic).filter((x) => !x.startsWith('.'));
        expect(mnemonics).toEqual(expected[i]!.mnemonics[k]);
      });
    }
    expect(dex.faults).toBe(0);
  });
});

/** SHA-256 fingerprints and serials (lowercase hex) of the certificates of a PKCS #7 file, by openssl. */
function opensslCertificates(apk: string, entry: string): { sha256: string; serial: string }[] {
  const der = execFileSync('unzip', ['-p', apk, entry]);
  const pem = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-print_certs'], { input: der }).toString();
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => {
    const text = execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256', '-serial'], {
      input: m[0],
    }).toString();
    return {
      sha256: /Fingerprint=([0-9A-F:]+)/.exec(text)![1]!.replace(/:/g, '').toLowerCase(),
      serial: /serial=([0-9A-F]+)/
        .exec(text)![1]!
        .toLowerCase()
        .replace(/^0+(?=.)/, ''),
    };
  });
}

describe('signing certificates against openssl', () => {
  it.each([
    'signing/apksig/golden-aligned-v1v2v3-out.apk',
    'signing/TestActivity_signed_both.apk',
    'tests/a2dp.Vol_137.apk',
  ])('%s: v1 certificates as openssl reads them; v2/v3 signers carry the same certificate', async (name) => {
    const apk = `${SAMPLES}/${name}`;
    const { normalized_result } = await runTool<Report>(inspectAndroidPackageTool, { path: apk });
    const v1 = normalized_result.units[0]!.v1_signers;
    expect(v1.length).toBeGreaterThan(0);
    for (const signer of v1) {
      const expected = opensslCertificates(apk, signer.path);
      expect(signer.certificates.map((c) => ({ sha256: c.sha256, serial: c.serial.replace(/^0+(?=.)/, '') }))).toEqual(
        expected,
      );
    }
    const v1Hashes = new Set(v1.flatMap((s) => s.certificates.map((c) => c.sha256)));
    for (const signer of normalized_result.signing_block?.signers ?? []) {
      for (const cert of signer.certificates) expect(v1Hashes.has(cert.sha256)).toBe(true);
    }
    if (name.includes('v1v2v3'))
      expect(normalized_result.signing_block!.schemes).toEqual(expect.arrayContaining(['v2', 'v3']));
  });
});

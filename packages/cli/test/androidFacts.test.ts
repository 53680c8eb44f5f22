import { describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { androidPackageFacts } from '../src/androidFacts.js';
import { formatEvidence } from '../src/format.js';

function manifest(pkg: string, components: Array<[kind: string, exported: boolean]>) {
  return {
    package: pkg,
    split: null,
    version_code: 42,
    version_name: '4.2',
    min_sdk: 21,
    target_sdk: 34,
    max_sdk: null,
    uses_permissions: [{ name: 'android.permission.INTERNET', max_sdk: null }],
    permissions: [],
    components: components.map(([kind, exported]) => ({ kind, name: `${pkg}.${kind}`, exported })),
  };
}

function unit(name: string, kind: string, m: unknown, classes: number[]) {
  return {
    name,
    kind,
    manifest: m,
    dex: classes.map((n, i) => ({ path: `classes${i || ''}.dex`, classes: n, methods: n * 10 })),
    native_libraries: [],
  };
}

const APK = {
  format: 'apk',
  units: [
    unit(
      '',
      'apk',
      manifest('com.example.app', [
        ['activity', true],
        ['activity', false],
        ['service', false],
        ['provider', true],
      ]),
      [100, 20],
    ),
  ],
  signing_block: null,
  signature_verification: [
    { unit: '', scheme: 'v1', status: 'verified', reason: null },
    { unit: '', scheme: 'v2', status: 'failed', reason: 'digest mismatch' },
    { unit: '', scheme: 'v3', status: 'absent', reason: null },
  ],
};

describe('androidPackageFacts', () => {
  it('should list the manifest, DEX and signature facts of one APK', () => {
    expect(androidPackageFacts(APK)).toEqual([
      '    format: apk',
      '    package: com.example.app',
      '    version: code 42, name 4.2',
      '    sdk: min 21, target 34',
      '    permissions: 1 requested, 0 declared',
      '    components: 2 activities, 1 service, 0 receivers, 1 provider (2 exported)',
      '    dex: 2 files, 120 classes, 1200 methods',
      '    signatures: v1 verified, v2 failed (digest mismatch), v3 absent',
    ]);
  });

  it('should summarise each APK of a set with its own signatures', () => {
    const set = {
      format: 'apk-set',
      units: [
        unit('base.apk', 'apk', manifest('com.example.app', [['activity-alias', true]]), [7]),
        {
          ...unit('split_config.arm64_v8a.apk', 'apk', null, []),
          native_libraries: [{ abi: 'arm64-v8a', libraries: ['a.so', 'b.so'] }],
        },
      ],
      signing_block: null,
      signature_verification: [
        { unit: 'base.apk', scheme: 'v2', status: 'verified', reason: null },
        { unit: 'split_config.arm64_v8a.apk', scheme: 'v2', status: 'verified', reason: null },
      ],
    };
    expect(androidPackageFacts(set)).toEqual([
      '    format: apk-set',
      '    unit base.apk (apk):',
      '      package: com.example.app',
      '      version: code 42, name 4.2',
      '      sdk: min 21, target 34',
      '      permissions: 1 requested, 0 declared',
      '      components: 0 activities, 1 activity alias, 0 services, 0 receivers, 0 providers (1 exported)',
      '      dex: 1 file, 7 classes, 70 methods',
      '      signatures: v2 verified',
      '    unit split_config.arm64_v8a.apk (apk):',
      '      manifest: none',
      '      dex: none',
      '      native libraries: arm64-v8a (2)',
      '      signatures: v2 verified',
    ]);
  });

  it('should say a DEX file is unsigned and a package whose signatures were not checked is not verified', () => {
    const dex = {
      format: 'dex',
      units: [unit('', 'dex', null, [3])],
      signing_block: null,
      signature_verification: null,
    };
    expect(androidPackageFacts(dex)).toEqual([
      '    format: dex',
      '    dex: 1 file, 3 classes, 30 methods',
      '    signatures: none (a DEX file is not signed)',
    ]);
    expect(androidPackageFacts({ ...APK, signature_verification: null })?.at(-1)).toBe('    signatures: not verified');
  });

  it('should leave a result of another shape to the generic summary', () => {
    for (const other of [null, 'apk', [], { format: 'apk' }, { units: [] }])
      expect(androidPackageFacts(other)).toBeNull();
  });
});

describe('formatEvidence, briefly', () => {
  const record = (operation: string, normalized_result: unknown) =>
    ({
      evidence_id: 'ev_0',
      operation,
      subject: null,
      provider: { id: 'android', name: '@rea/provider-android', version: '0.1.0' },
      confidence: 'observed',
      coverage: { status: 'complete', reasons: [] },
      limitations: [],
      normalized_result,
    }) as unknown as EvidenceRecord;

  it('should show the key facts of an Android record, with names from the package escaped', () => {
    const hostile = { ...APK, units: [{ ...APK.units[0]!, manifest: manifest('com.evil\u001b[2J', []) }] };
    const text = formatEvidence(record('inspect_android_package', hostile), true);
    expect(text).toContain('\n    package: com.evil\\e[2J\n');
    expect(text).not.toContain('\u001b');
    expect(text).not.toMatch(/\{\d+ fields\}|\d+ items?/);
  });

  it('should keep the generic summary for other tools', () => {
    const text = formatEvidence(record('inspect_artifact', { format: 'zip', units: [{ name: 'a' }] }), true);
    expect(text).toContain('\n    format: zip\n    units: 1 item (a)\n');
  });
});

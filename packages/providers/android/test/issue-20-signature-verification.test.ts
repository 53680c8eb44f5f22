// Signature verification of v1 (JAR), v2 and v3 against real signed APKs: the apksig test APKs that
// androguard ships (their names say which scheme, algorithm and fault they hold), an APK signed at
// test time by apksigner with the sample keys, and copies of it with one byte changed, each
// cross-checked with `apksigner verify` restricted to the SDK range where only that scheme counts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectAndroidPackageTool } from '../src/index.js';
import { verifySignatures } from '../src/signing/verify.js';
import type { SchemeVerification } from '../src/signing/verify.js';
import { SAMPLES, runTool } from './support.js';

const APKSIG = `${SAMPLES}/signing/apksig`;
// v1 from API 21: ECDSA JAR signatures with SHA-256 are not accepted below it, which apksigner judges and
// this verifier does not.
const SDK = { v1: ['21', '23'], v2: ['24', '27'], v3: ['28', '33'] } as const;
let dir: string;
let signed: string;

/** apksigner's verdict on `apk` for `scheme`, asked over the SDK range where only that scheme is used. */
function apksigner(apk: string, scheme: keyof typeof SDK): boolean {
  const [min, max] = SDK[scheme];
  const run = spawnSync('apksigner', ['verify', '-v', '--min-sdk-version', min, '--max-sdk-version', max, apk], {
    encoding: 'utf8',
  });
  return new RegExp(`^Verified using ${scheme} scheme .*: true$`, 'm').test(run.stdout);
}

const base = (scheme: string, status: string, signers: number) => ({ unit: '', scheme, status, reason: null, signers });

async function statuses(apk: string): Promise<Record<string, string>> {
  const result = await verifySignatures(apk, undefined);
  return Object.fromEntries(result.map((r: SchemeVerification) => [r.scheme, r.status]));
}

/** A copy of `signed` with one byte changed at `offset`. */
function tampered(name: string, offset: (bytes: Buffer) => number): string {
  const bytes = readFileSync(signed);
  const at = offset(bytes);
  bytes[at] = bytes[at]! ^ 0x01;
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-sign-'));
  signed = join(dir, 'signed.apk');
  execFileSync('apksigner', [
    'sign',
    '--key',
    `${APKSIG}/ec-p256.pk8`,
    '--cert',
    `${APKSIG}/ec-p256.x509.pem`,
    '--min-sdk-version',
    '18',
    '--v1-signing-enabled',
    'true',
    '--v2-signing-enabled',
    'true',
    '--v3-signing-enabled',
    'true',
    '--out',
    signed,
    `${APKSIG}/golden-aligned-in.apk`,
  ]);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('signature verification', () => {
  it('verifies every scheme of an APK apksigner signed here, as apksigner does', async () => {
    expect(await statuses(signed)).toEqual({ v1: 'verified', v2: 'verified', v3: 'verified', 'v3.1': 'absent' });
    expect(['v1', 'v2', 'v3'].map((s) => apksigner(signed, s as keyof typeof SDK))).toEqual([true, true, true]);
    const { normalized_result } = await runTool<{ signature_verification: SchemeVerification[] }>(
      inspectAndroidPackageTool,
      { path: signed },
    );
    expect(normalized_result.signature_verification).toEqual([
      // The API levels accepting each signer's algorithms: see issue-20-sdk-acceptance.test.ts.
      { ...base('v1', 'verified', 1), accepted_sdk: [{ min_sdk: 18, max_sdk: null }] },
      { ...base('v2', 'verified', 1), accepted_sdk: [{ min_sdk: 24, max_sdk: null }] },
      { ...base('v3', 'verified', 1), accepted_sdk: [{ min_sdk: 28, max_sdk: null }] },
      { ...base('v3.1', 'absent', 0), accepted_sdk: [] },
    ]);
  }, 120_000);

  it('fails v2 and v3 but not v1 when a byte outside the entries (a local header time) changes', async () => {
    // The first local header's modification time (offset 10): not part of any entry's bytes.
    const apk = tampered('header-time.apk', () => 10);
    const result = await verifySignatures(apk, undefined);
    expect(result.map((r) => [r.scheme, r.status])).toEqual([
      ['v1', 'verified'],
      ['v2', 'failed'],
      ['v3', 'failed'],
      ['v3.1', 'absent'],
    ]);
    expect(result[1]!.reason).toMatch(/contents digest/);
    expect([apksigner(apk, 'v1'), apksigner(apk, 'v2')]).toEqual([true, false]);
  }, 120_000);

  it('fails every scheme when one byte of an entry changes, as apksigner does', async () => {
    // The last byte of the first entry's data (its local header is at 0).
    const apk = tampered('entry-byte.apk', (b) => {
      const data = 30 + b.readUInt16LE(26) + b.readUInt16LE(28);
      return data + b.readUInt32LE(18) - 1;
    });
    expect(await statuses(apk)).toEqual({ v1: 'failed', v2: 'failed', v3: 'failed', 'v3.1': 'absent' });
    expect([apksigner(apk, 'v1'), apksigner(apk, 'v2'), apksigner(apk, 'v3')]).toEqual([false, false, false]);
  }, 120_000);

  it('fails v3 when a byte of what its signer signed changes', async () => {
    const apk = tampered('v3-signature.apk', (b) => {
      const v3 = b.indexOf(Buffer.from([0xc0, 0x68, 0x53, 0xf0])); // the v3 block id, little-endian
      return v3 + 100;
    });
    const result = await verifySignatures(apk, undefined);
    expect(result.find((r) => r.scheme === 'v3')!.status).toBe('failed');
    expect(result.find((r) => r.scheme === 'v2')!.status).toBe('verified');
    expect(apksigner(apk, 'v3')).toBe(false);
  }, 120_000);

  it('reads and verifies the signing blocks of APKs inside an XAPK-style set', async () => {
    const header = tampered('header-time.apk', () => 10);
    const folder = join(dir, 'set');
    execFileSync('mkdir', ['-p', folder]);
    execFileSync('cp', [signed, join(folder, 'base.apk')]);
    execFileSync('cp', [header, join(folder, 'config.apk')]);
    const xapk = join(dir, 'app.xapk');
    execFileSync('zip', ['-q', '-0', '-j', xapk, join(folder, 'base.apk'), join(folder, 'config.apk')]);
    interface Report {
      units: {
        name: string;
        signing_block: { schemes: string[]; signers: { certificates: { sha256: string }[] }[] } | null;
      }[];
      signing_block: { signers: { certificates: { sha256: string }[] }[] } | null;
      signature_verification: { unit: string; scheme: string; status: string }[];
    }
    const single = (await runTool<Report>(inspectAndroidPackageTool, { path: signed })).normalized_result;
    {
      const r = (await runTool<Report>(inspectAndroidPackageTool, { path: xapk })).normalized_result;
      expect(r.units.map((u) => [u.name, u.signing_block?.schemes])).toEqual([
        ['base.apk', ['v2', 'v3']],
        ['config.apk', ['v2', 'v3']],
      ]);
      expect(r.units[0]!.signing_block!.signers.map((s) => s.certificates[0]!.sha256)).toEqual(
        single.signing_block!.signers.map((s) => s.certificates[0]!.sha256),
      );
      expect(r.signature_verification.map((v) => `${v.unit} ${v.scheme} ${v.status}`)).toEqual([
        'base.apk v1 verified',
        'base.apk v2 verified',
        'base.apk v3 verified',
        'base.apk v3.1 absent',
        'config.apk v1 verified',
        'config.apk v2 failed',
        'config.apk v3 failed',
        'config.apk v3.1 absent',
      ]);
    }
  }, 120_000);

  it('agrees with apksigner on the sample APKs whose JAR signer names its certificate with another string type', async () => {
    const original = `${APKSIG}/original.apk`;
    expect(await statuses(original)).toMatchObject({ v1: 'verified', v2: 'verified' });
    expect([apksigner(original, 'v1'), apksigner(original, 'v2')]).toEqual([true, true]);
    const broken = `${APKSIG}/two-signers-second-signer-v2-broken.apk`;
    expect(await statuses(broken)).toMatchObject({ v1: 'verified', v2: 'failed' });
    expect([apksigner(broken, 'v1'), apksigner(broken, 'v2')]).toEqual([true, false]);
  }, 120_000);

  it('gives every apksig sample the outcome its name states, for each algorithm and key size', async () => {
    const pattern =
      /^v([123])-only-with-(?:rsa|ecdsa|dsa)-[a-z0-9.-]*?(-sig-does-not-verify|-digest-mismatch|-apk-sig-block-size-mismatch)?\.apk$/;
    const samples = readdirSync(APKSIG).filter((f) => pattern.test(f) && !/cert-not-der|signed-attrs|magic/.test(f));
    expect(samples.length).toBeGreaterThan(90);
    const wrong: string[] = [];
    for (const file of samples) {
      const [, scheme, fault] = pattern.exec(file)!;
      // DSA with SHA-384 or SHA-512 is accepted by no Android version for JAR signatures: apksigner
      // rejects those samples at every API level (issue-20-sdk-acceptance.test.ts checks it).
      const unaccepted = /^v1-only-with-dsa-sha(384|512)-/.test(file);
      const expected = fault === undefined && !unaccepted ? 'verified' : 'failed';
      const got = (await statuses(join(APKSIG, file)))[`v${scheme}`];
      if (got !== expected) wrong.push(`${file}: ${got}`);
    }
    expect(wrong).toEqual([]);
  }, 300_000);

  it('reports JAR signatures with broken signed attributes or manifest digests as failed, with the reason', async () => {
    const cases: [string, RegExp][] = [
      ['v1-only-with-signed-attrs-wrong-digest.apk', /signed message digest/],
      ['v1-only-with-signed-attrs-wrong-signature.apk', /signature does not match/],
      ['v1-sha1-sha256-manifest-and-sf-with-sha256-wrong-in-manifest.apk', /digest of .* does not match its bytes/],
      ['v1-sha1-sha256-manifest-and-sf-with-sha1-wrong-in-sf.apk', /manifest section/],
      ['v2-only-cert-and-public-key-mismatch.apk', /public key is not its certificate's/],
      ['v2-only-apk-sig-block-size-mismatch.apk', /sizes of the signing block disagree/],
    ];
    for (const [file, reason] of cases) {
      const result = await verifySignatures(join(APKSIG, file), undefined);
      const bad = result.find((r) => r.status === 'failed');
      expect([file, bad?.reason]).toEqual([file, expect.stringMatching(reason)]);
    }
  });
});

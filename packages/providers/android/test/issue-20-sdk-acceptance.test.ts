// Which Android versions accept a signer's signature algorithms: each verified scheme reports, per
// signer, the API levels [min_sdk, max_sdk] that accept it. Checked against apksigner, which models the
// platform's verifiers: at min_sdk the APK verifies with that scheme alone, one level below it does not,
// and a signer no level accepts fails the scheme, as it verifies nowhere. The samples are apksig's (their names give the
// scheme, digest and signature algorithm OID), plus an APK signed here for min SDK 18.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifySignatures } from '../src/signing/verify.js';
import { APKSIG, signGoldenApk } from './support.js';

let dir: string;
let signed: string;

/** True when apksigner verifies `apk` for every API level in [min, max]. */
function apksignerVerifies(apk: string, min: number, max: number): boolean {
  const run = spawnSync('apksigner', [
    'verify',
    '--min-sdk-version',
    String(min),
    '--max-sdk-version',
    String(max),
    apk,
  ]);
  return run.status === 0;
}

async function accepted(apk: string, scheme: string) {
  const v = (await verifySignatures(apk, undefined)).find((r) => r.scheme === scheme)!;
  expect([apk, v.status]).toEqual([apk, 'verified']);
  return v.accepted_sdk;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-sdk-'));
  signed = signGoldenApk(join(dir, 'signed.apk'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('API levels accepting each signer', () => {
  it.each([
    ['v1-only-with-rsa-pkcs1-sha1-1.2.840.113549.1.1.1-1024.apk', 1],
    ['v1-only-with-dsa-sha1-1.2.840.10040.4.3-1024.apk', 9],
    ['v1-only-with-ecdsa-sha1-1.2.840.10045.2.1-p256.apk', 18],
    ['v1-only-with-ecdsa-sha256-1.2.840.10045.4.3.2-p256.apk', 21],
    ['v1-only-with-dsa-sha256-1.2.840.10040.4.1-1024.apk', 22],
  ])(
    'v1 signer of %s: from API %i, as apksigner judges',
    async (file, min) => {
      const apk = `${APKSIG}/${file}`;
      expect(await accepted(apk, 'v1')).toEqual([{ min_sdk: min, max_sdk: null }]);
      expect(apksignerVerifies(apk, min, 23)).toBe(true);
      if (min > 1) expect(apksignerVerifies(apk, min - 1, min - 1)).toBe(false);
    },
    60_000,
  );

  it.each([
    ['v1-only-with-dsa-sha384-2.16.840.1.101.3.4.3.3-2048.apk', 'SHA-384 with DSA'],
    ['v1-only-with-dsa-sha512-2.16.840.1.101.3.4.3.4-1024.apk', 'SHA-512 with DSA'],
  ])(
    'fails the JAR signature of %s, which no Android version accepts, as apksigner does',
    async (file, algorithms) => {
      const apk = `${APKSIG}/${file}`;
      const v1 = (await verifySignatures(apk, undefined)).find((r) => r.scheme === 'v1')!;
      expect(v1).toMatchObject({ status: 'failed', accepted_sdk: [] });
      expect(v1.reason).toContain(`signed with ${algorithms}, which no Android API level accepts`);
      // apksigner: DOES NOT VERIFY, whether asked for the oldest levels or the newer ones.
      expect([apksignerVerifies(apk, 1, 22), apksignerVerifies(apk, 23, 23)]).toEqual([false, false]);
    },
    60_000,
  );

  it('reports v2 from API 24 and v3 from API 28, as apksigner judges', async () => {
    const v2 = `${APKSIG}/v2-only-with-ecdsa-sha256-p256.apk`;
    expect(await accepted(v2, 'v2')).toEqual([{ min_sdk: 24, max_sdk: null }]);
    expect([apksignerVerifies(v2, 24, 24), apksignerVerifies(v2, 23, 23)]).toEqual([true, false]);
    const v3 = `${APKSIG}/v3-only-with-ecdsa-sha256-p256.apk`;
    expect(await accepted(v3, 'v3')).toEqual([{ min_sdk: 28, max_sdk: null }]);
    expect([apksignerVerifies(v3, 28, 28), apksignerVerifies(v3, 27, 27)]).toEqual([true, false]);
  }, 60_000);

  it('reports the schemes of an APK signed here for min SDK 18 with an RSA key', async () => {
    const result = await verifySignatures(signed, undefined);
    expect(result.map((r) => [r.scheme, r.accepted_sdk])).toEqual([
      ['v1', [{ min_sdk: 18, max_sdk: null }]],
      ['v2', [{ min_sdk: 24, max_sdk: null }]],
      ['v3', [{ min_sdk: 28, max_sdk: null }]],
      ['v3.1', []],
    ]);
    expect([apksignerVerifies(signed, 18, 23), apksignerVerifies(signed, 17, 17)]).toEqual([true, false]);
  }, 60_000);
});

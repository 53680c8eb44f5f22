// The signatures inside a v3 key-rotation lineage are checked: each certificate of the lineage is signed
// by the one before it. An APK is rotated here with apksigner (rsa-2048 → rsa-3072, the sample keys);
// a copy has one byte of the lineage's second signature changed and its v3 signer re-signed with the
// new key, so that only the lineage is broken. apksigner rejects that copy's v3 signature too.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifySignatures } from '../src/signing/verify.js';
import { APKSIG } from './support.js';

let dir: string;
let rotated: string;

/** The length-prefixed value at `at`: [start, end). */
function one(b: Buffer, at: number): [number, number] {
  return [at + 4, at + 4 + b.readUInt32LE(at)];
}

/** The [start, end) of each length-prefixed value in bytes[start, end). */
function values(b: Buffer, start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  for (let p = start; p < end; p = one(b, p)[1]) out.push(one(b, p));
  return out;
}

/**
 * Where, in `apk`, the v3 signer's signed data and signatures lie, and the signature of its lineage's
 * second node (read here by the format, independently of the code under test).
 */
function v3Signer(apk: Buffer) {
  const eocd = apk.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const cd = apk.readUInt32LE(eocd + 16);
  // The block: u64 size, (u64 length, u32 id, value) pairs, u64 size, magic.
  for (let pair = cd - Number(apk.readBigUInt64LE(cd - 24)); pair < cd - 24;) {
    const length = Number(apk.readBigUInt64LE(pair));
    if (apk.readUInt32LE(pair + 8) === 0xf05368c0) {
      const [signer] = values(apk, ...one(apk, pair + 12));
      const signedData = one(apk, signer![0]);
      // Signer: signed data, min SDK, max SDK, signatures, public key.
      const signatures = values(apk, ...one(apk, signedData[1] + 8)).map(([s]) => ({
        id: apk.readUInt32LE(s),
        value: one(apk, s + 4),
      }));
      // Signed data: digests, certificates, min SDK, max SDK, additional attributes.
      const certificates = one(apk, one(apk, signedData[0])[1]);
      const attributes = values(apk, ...one(apk, certificates[1] + 8));
      const lineage = attributes.find(([s]) => apk.readUInt32LE(s) === 0x3ba06f8c)!;
      // Lineage: id, version, nodes; node: signed data, flags, algorithm, signature.
      const node = values(apk, lineage[0] + 8, lineage[1])[1]!;
      const nodeSignature = one(apk, one(apk, node[0])[1] + 8);
      return { signedData, signatures, nodeSignature };
    }
    pair += 8 + length;
  }
  throw new Error('no v3 block');
}

function apksignerV3(apk: string): { verified: boolean; text: string } {
  const run = spawnSync('apksigner', ['verify', '-v', '--min-sdk-version', '28', apk], { encoding: 'utf8' });
  const text = `${run.stdout}${run.stderr}`;
  return { verified: /^Verified using v3 scheme .*: true$/m.test(text), text };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-lineage-'));
  const lineage = join(dir, 'lineage.bin');
  const key = (name: string) => ['--key', `${APKSIG}/${name}.pk8`, '--cert', `${APKSIG}/${name}.x509.pem`];
  execFileSync('apksigner', [
    'rotate',
    '--out',
    lineage,
    '--old-signer',
    ...key('rsa-2048'),
    '--new-signer',
    ...key('rsa-3072'),
  ]);
  rotated = join(dir, 'rotated.apk');
  execFileSync('apksigner', [
    'sign',
    '--lineage',
    lineage,
    ...key('rsa-2048'),
    '--next-signer',
    ...key('rsa-3072'),
    '--out',
    rotated,
    `${APKSIG}/golden-aligned-in.apk`,
  ]);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('v3 key-rotation lineage signatures', () => {
  it('verifies the lineages of an APK rotated here and of the sample APKs', async () => {
    expect(apksignerV3(rotated).verified).toBe(true);
    for (const apk of [
      rotated,
      `${APKSIG}/golden-aligned-v3-lineage-out.apk`,
      `${APKSIG}/v1v2v3-with-rsa-2048-lineage-3-signers.apk`,
    ]) {
      const v3 = (await verifySignatures(apk, undefined)).find((v) => v.scheme === 'v3')!;
      expect([apk, v3.status, v3.reason]).toEqual([apk, 'verified', null]);
    }
  }, 120_000);

  it('fails v3 when a lineage signature is broken though the signer signed it, as apksigner does', async () => {
    const bytes = readFileSync(rotated);
    const where = v3Signer(bytes);
    bytes[where.nodeSignature[1] - 1]! ^= 0x01;
    // Re-sign the v3 signer's signed data with its own key, so that only the lineage is wrong.
    const key = createPrivateKey({ key: readFileSync(`${APKSIG}/rsa-3072.pk8`), format: 'der', type: 'pkcs8' });
    const data = bytes.subarray(where.signedData[0], where.signedData[1]);
    for (const s of where.signatures) {
      expect(s.id).toBe(0x0103); // RSASSA-PKCS1-v1_5 with SHA2-256: same length every time
      const signature = sign('sha256', data, key);
      expect(signature.length).toBe(s.value[1] - s.value[0]);
      signature.copy(bytes, s.value[0]);
    }
    const broken = join(dir, 'broken-lineage.apk');
    writeFileSync(broken, bytes);
    const result = await verifySignatures(broken, undefined);
    expect(result.map((r) => [r.scheme, r.status])).toEqual([
      ['v1', 'verified'],
      ['v2', 'verified'],
      ['v3', 'failed'],
      ['v3.1', 'absent'],
    ]);
    expect(result[2]!.reason).toBe(
      'signer 1: the key-rotation lineage is broken: the signature of certificate 2 does not verify with the key of certificate 1',
    );
    const reference = apksignerV3(broken);
    expect(reference.verified).toBe(false);
    expect(reference.text).toMatch(/SigningCertificateLineage|proof-of-rotation/i);
  }, 120_000);
});

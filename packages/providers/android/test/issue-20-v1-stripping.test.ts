// Stripping protection of JAR signatures: apksigner writes `X-Android-APK-Signed: 2, 3` into the .SF of
// an APK it also signs with APK Signature Scheme v2 and v3, so that removing the newer signatures (to
// fall back on the older, weaker one) is detected. The APK here is signed at test time; a copy has its
// APK Signing Block cut out (the ZIP directory moved back to where the block began), as an attacker
// would; apksigner rejects it, and so must v1.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifySignatures } from '../src/signing/verify.js';
import { signGoldenApk } from './support.js';

let dir: string;
let signed: string;

/** `apk` without its APK Signing Block, the end record pointing at the directory's new place. */
function stripBlock(apk: Buffer): Buffer {
  const eocd = apk.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const cd = apk.readUInt32LE(eocd + 16);
  expect(apk.toString('latin1', cd - 16, cd)).toBe('APK Sig Block 42');
  const start = cd - Number(apk.readBigUInt64LE(cd - 24)) - 8;
  const out = Buffer.concat([apk.subarray(0, start), apk.subarray(cd)]);
  out.writeUInt32LE(start, eocd - (cd - start) + 16);
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-strip-'));
  signed = signGoldenApk(join(dir, 'signed.apk'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('v1 stripping protection', () => {
  it('fails v1 when the .SF names APK Signature Scheme v2 and v3 but their block was cut out, as apksigner does', async () => {
    const bytes = readFileSync(signed);
    const sf = execFileSync('unzip', ['-p', signed, 'META-INF/*.SF'], { encoding: 'utf8' });
    expect(sf).toMatch(/^X-Android-APK-Signed: 2, 3\r?$/m);
    const stripped = join(dir, 'stripped.apk');
    writeFileSync(stripped, stripBlock(bytes));
    const run = spawnSync('apksigner', ['verify', '-v', stripped], { encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toMatch(
      /signed using APK Signature Scheme v2 but no such signature was found/,
    );
    const result = await verifySignatures(stripped, undefined);
    expect(result.map((r) => [r.scheme, r.status])).toEqual([
      ['v1', 'failed'],
      ['v2', 'absent'],
      ['v3', 'absent'],
      ['v3.1', 'absent'],
    ]);
    expect(result[0]!.reason).toMatch(/APK Signature Scheme v2, whose block is missing \(stripped\)/);
    // The intact APK verifies in every scheme.
    expect((await verifySignatures(signed, undefined)).map((r) => r.status)).toEqual([
      'verified',
      'verified',
      'verified',
      'absent',
    ]);
  }, 120_000);
});

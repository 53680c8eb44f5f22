// inspect_android_package with verify_signatures false reads what aapt reads and the certificates, and
// checks no signature or digest: its report is the full one less signature_verification, and it says
// so in a limitation. A split set reports the signing block of each APK all the same.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectAndroidPackageTool } from '../src/index.js';
import { runTool, signGoldenApk } from './support.js';

let dir: string;
let signed: string;

interface Report {
  units: { name: string; signing_block: unknown; v1_signers: unknown[] }[];
  signing_block: { signers: { certificates: { sha256: string }[] }[] } | null;
  signature_verification: { scheme: string; status: string }[] | null;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-noverify-'));
  signed = signGoldenApk(join(dir, 'signed.apk'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function both(path: string) {
  const full = await runTool<Report>(inspectAndroidPackageTool, { path });
  const light = await runTool<Report>(inspectAndroidPackageTool, { path, verify_signatures: false });
  return { full, light };
}

describe('inspect_android_package without signature verification', () => {
  it('reports everything but the verification of an APK, whose entries it does not check', async () => {
    // A changed byte in a native library's data: v1 fails on it, and only verification reads that entry.
    const bytes = readFileSync(signed);
    const name = bytes.indexOf('lib/armeabi/fake.so');
    const header = name - 30;
    expect(bytes.readUInt32LE(header)).toBe(0x04034b50);
    bytes[name + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28)]! ^= 1;
    const tampered = join(dir, 'tampered.apk');
    writeFileSync(tampered, bytes);
    for (const [path, v1] of [
      [signed, 'verified'],
      [tampered, 'failed'],
    ] as const) {
      const { full, light } = await both(path);
      expect(full.normalized_result.signature_verification?.[0]).toMatchObject({ scheme: 'v1', status: v1 });
      expect(light.normalized_result.signature_verification).toBeNull();
      expect(light.limitations.map((l) => l.kind)).toContain('signatures-not-verified');
      expect({ ...light.normalized_result, signature_verification: null }).toEqual({
        ...full.normalized_result,
        signature_verification: null,
      });
      expect(light.normalized_result.signing_block!.signers.length).toBeGreaterThan(0);
      expect(light.normalized_result.units[0]!.v1_signers).toHaveLength(1);
    }
  }, 120_000);

  it('reads the signing block of each APK of a split folder without verifying it', async () => {
    const folder = join(dir, 'split');
    execFileSync('mkdir', [folder]);
    copyFileSync(signed, join(folder, 'base.apk'));
    const { full, light } = await both(folder);
    expect(full.normalized_result.signature_verification!.length).toBeGreaterThan(0);
    expect(light.normalized_result.signature_verification).toBeNull();
    expect(light.normalized_result.units).toEqual(full.normalized_result.units);
    expect(light.normalized_result.units[0]!.signing_block).not.toBeNull();
  }, 120_000);
});

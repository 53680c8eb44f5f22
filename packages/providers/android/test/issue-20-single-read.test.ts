// inspect_android_package reads a large APK as few times as it can: the package load computes the file's
// SHA-256 and the content digests its v2/v3 signers sign in one read, and signature verification works
// from the ZIP listing and file the caller opened (here: after the file's name is gone) instead of
// listing the central directory again.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openZipEntries } from '@rea/artifact';
import { loadPackage } from '../src/package/load.js';
import { verifySignatures } from '../src/signing/verify.js';
import { signGoldenApk } from './support.js';

let dir: string;
let signed: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-once-'));
  signed = signGoldenApk(join(dir, 'signed.apk'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('one read of the APK', () => {
  it('gives the SHA-256 of the file and the content digest apksigner signed, from the same read', async () => {
    const loaded = await loadPackage(signed, undefined);
    expect(loaded.subject.sha256).toBe(createHash('sha256').update(readFileSync(signed)).digest('hex'));
    // What apksigner wrote into the block for RSASSA-PKCS1-v1_5 with SHA2-256 (v2 and v3 sign the same).
    const declared = loaded.signingBlock!.signers.flatMap((s) =>
      s.digests.filter((d) => d.algorithm === 'RSASSA-PKCS1-v1_5 with SHA2-256').map((d) => d.digest),
    );
    expect(declared).toHaveLength(2);
    expect(loaded.contentDigests?.get('sha256')?.toString('hex')).toBe(declared[0]);
    expect(declared[1]).toBe(declared[0]);
  }, 60_000);

  it('verifies every scheme from the ZIP and the file the caller opened', async () => {
    const copy = join(dir, 'opened.apk');
    copyFileSync(signed, copy);
    const zip = await openZipEntries(copy);
    const file = await open(copy, 'r');
    try {
      unlinkSync(copy);
      const result = await verifySignatures(copy, undefined, { zip, file });
      expect(result.map((r) => [r.scheme, r.status, r.reason])).toEqual([
        ['v1', 'verified', null],
        ['v2', 'verified', null],
        ['v3', 'verified', null],
        ['v3.1', 'absent', null],
      ]);
    } finally {
      zip.close();
      await file.close();
    }
  }, 60_000);
});

// An APK is read from its ZIP central directory: only the analyzed entries are inflated and checked,
// and the report says so rather than implying every entry was verified.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listZipEntries } from '@rea/artifact';
import { inspectAndroidPackageTool } from '@rea/provider-android';
import { SAMPLES, runTool } from './support.js';

const APK = `${SAMPLES}/android/TestsAndroguard/bin/TestActivity.apk`;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-cd-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the sample APK with one byte of `entry`'s data flipped. */
async function flipped(entry: string): Promise<string> {
  const bytes = Buffer.from(readFileSync(APK));
  const { entries } = await listZipEntries(APK);
  const at = entries.find((e) => e.path === entry)!.localHeaderOffset;
  const data = at + 30 + bytes.readUInt16LE(at + 26) + bytes.readUInt16LE(at + 28);
  bytes[data + 10]! ^= 0xff;
  const path = join(dir, `${entry.replace(/\W/g, '_')}.apk`);
  writeFileSync(path, bytes);
  // unzip agrees that the entry is damaged and the rest intact.
  const test = (() => {
    try {
      return execFileSync('unzip', ['-tq', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      return String((error as { stdout?: string }).stdout);
    }
  })();
  expect(test).toContain(entry);
  return path;
}

describe('inspect_android_package on the central directory', () => {
  it('reads the analyzed entries and says the other entries were listed, not verified', async () => {
    const path = await flipped('res/drawable-hdpi/icon.png');
    const { normalized_result, limitations } = await runTool<{ units: { manifest: { package: string } }[] }>(
      inspectAndroidPackageTool,
      { path },
    );
    expect(normalized_result.units[0]!.manifest.package).toBe('tests.androguard');
    // 10 entries; manifest, resources.arsc, classes.dex and CERT.RSA are read, the other 6 are not.
    expect(limitations).toContainEqual(
      expect.objectContaining({ kind: 'entries-not-verified', message: expect.stringMatching(/^6 entries/) }),
    );
    expect(limitations).not.toContainEqual(expect.objectContaining({ scope: 'res/drawable-hdpi/icon.png' }));
  });

  it('reports an analyzed entry whose bytes contradict its CRC-32, and does not analyze it', async () => {
    const path = await flipped('classes.dex');
    const { normalized_result, limitations } = await runTool<{ units: { dex: unknown[] }[] }>(
      inspectAndroidPackageTool,
      { path },
    );
    expect(limitations).toContainEqual(
      expect.objectContaining({ kind: 'integrity-contradicted', scope: 'classes.dex' }),
    );
    expect(normalized_result.units[0]!.dex).toEqual([]);
  });
});

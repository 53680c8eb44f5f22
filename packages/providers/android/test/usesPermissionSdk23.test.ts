// A manifest requests permissions with `uses-permission` and, for API 23 and later only, with
// `uses-permission-sdk-23`. The manifest's `uses_permissions` lists both in document order, each naming
// its element, as aapt's XML tree of the same binary manifest shows them: androguard's
// duplicate.permisssions sample interleaves the two (two sdk-23 requests between plain ones, one with
// a maxSdkVersion), and every other sample APK is held to the same reading.
import { describe, expect, it } from '@jest/globals';
import { inspectAndroidPackageTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

interface Request {
  name: string;
  element: string;
  max_sdk: number | null;
  required: boolean;
}

/** The manifest's permission requests as `aapt dump xmltree` shows them, in its order. */
function xmltreeRequests(apk: string): Request[] {
  const lines = output('aapt', ['dump', 'xmltree', apk, 'AndroidManifest.xml']).split('\n');
  const requests: Request[] = [];
  let current: Request | null = null;
  for (const line of lines) {
    const depth = line.search(/\S/);
    // The manifest element is at depth 2: its children at 4, their attributes at 6.
    if (depth <= 4) current = null;
    const element = /^ {4}E: (uses-permission(?:-sdk-23)?) \(line=\d+\)$/.exec(line);
    if (element !== null) {
      current = { name: '', element: element[1]!, max_sdk: null, required: true };
      requests.push(current);
      continue;
    }
    if (current === null || depth !== 6) continue;
    const name = /^ +A: android:name\(0x01010003\)="([^"]*)"/.exec(line);
    if (name !== null) current.name = name[1]!;
    const max = /^ +A: android:maxSdkVersion\(0x01010271\)=\(type 0x1[01]\)(0x[0-9a-f]+|\d+)$/.exec(line);
    if (max !== null) current.max_sdk = Number(max[1]);
    const required = /^ +A: android:required\(0x0101028e\)=\(type 0x12\)(0x[0-9a-f]+)$/.exec(line);
    if (required !== null) current.required = Number(required[1]) !== 0;
  }
  return requests;
}

async function requested(apk: string): Promise<Request[]> {
  const { normalized_result } = await runTool<{ units: { manifest: { uses_permissions: Request[] } }[] }>(
    inspectAndroidPackageTool,
    { path: apk, verify_signatures: false },
  );
  return normalized_result.units[0]!.manifest.uses_permissions;
}

const INTERLEAVED = `${SAMPLES}/tests/duplicate.permisssions_9999999.apk`;
const OTHERS = [
  'tests/a2dp.Vol_137.apk',
  'tests/com.teleca.jamendo_35.apk',
  'tests/com.politedroid_4.apk',
  'tests/com.example.android.tvleanback.apk',
  'android/abcore/app-prod-debug.apk',
].map((p) => `${SAMPLES}/${p}`);

describe('uses-permission-sdk-23 requests', () => {
  it('should keep them apart from uses-permission and in document order, as aapt dump xmltree shows them', async () => {
    const expected = xmltreeRequests(INTERLEAVED);
    // What the sample is for: sdk-23 requests between plain ones, one limited by maxSdkVersion.
    expect(expected.map((r) => r.element)).toEqual([
      ...new Array<string>(5).fill('uses-permission'),
      'uses-permission-sdk-23',
      'uses-permission-sdk-23',
      'uses-permission',
    ]);
    expect(expected.filter((r) => r.max_sdk !== null).length).toBe(2);
    expect(await requested(INTERLEAVED)).toEqual(expected);
  });

  it.each(OTHERS)('should read the requests of %s as aapt dump xmltree shows them', async (apk) => {
    const expected = xmltreeRequests(apk);
    expect(expected.length).toBeGreaterThan(0);
    expect(await requested(apk)).toEqual(expected);
  });
});

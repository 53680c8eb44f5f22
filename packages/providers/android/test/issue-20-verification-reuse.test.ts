// Signature verification inside inspect_android_package reuses the entries the package load already
// read and CRC-checked: an entry whose bytes contradict its CRC is not among them, so v1 still reads
// it (and fails) as apksigner does. The JAR manifest reader splits LF, CR LF and lone CR lines alike.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectAndroidPackageTool } from '../src/index.js';
import { parseJarManifest } from '../src/signing/jarManifest.js';
import { runTool, signGoldenApk } from './support.js';

let dir: string;
let signed: string;

interface Report {
  signature_verification: { scheme: string; status: string; reason: string | null }[];
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-reuse-'));
  signed = signGoldenApk(join(dir, 'signed.apk'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('verification reusing the bytes the load read', () => {
  it('fails v1 on a manifest byte changed inside the APK, as apksigner does', async () => {
    const bytes = readFileSync(signed);
    // The last byte of the first entry's data: the load leaves it out (CRC contradiction).
    const data = 30 + bytes.readUInt16LE(26) + bytes.readUInt16LE(28);
    const at = data + bytes.readUInt32LE(18) - 1;
    bytes[at] = bytes[at]! ^ 0x01;
    const apk = join(dir, 'tampered.apk');
    writeFileSync(apk, bytes);
    const name = bytes.toString('utf8', 30, 30 + bytes.readUInt16LE(26));
    const { normalized_result, limitations } = await runTool<Report>(inspectAndroidPackageTool, { path: apk });
    expect(limitations).toContainEqual(expect.objectContaining({ kind: 'integrity-contradicted', scope: name }));
    const v1 = normalized_result.signature_verification.find((v) => v.scheme === 'v1')!;
    expect(v1.status).toBe('failed');
    const run = spawnSync('apksigner', ['verify', '-v', '--max-sdk-version', '23', apk], { encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    const intact = await runTool<Report>(inspectAndroidPackageTool, { path: signed });
    expect(intact.normalized_result.signature_verification.map((v) => v.status)).toEqual([
      'verified',
      'verified',
      'verified',
      'absent',
    ]);
  }, 120_000);

  it('reads JAR manifest sections the same with LF, CR LF and lone CR line ends', () => {
    const text = 'Manifest-Version: 1.0\n\nName: res/a.xml\nSHA-256-Digest: abc\n de\n\nName: b\nX: 1\n';
    const shape = (eol: string) => {
      const m = parseJarManifest(Buffer.from(text.replace(/\n/g, eol)));
      const per = eol.length;
      return {
        main: [...m.main.attributes],
        entries: [...m.entries].map(([k, s]) => [k, [...s.attributes], s.start / per, s.end / per]),
      };
    };
    const lf = shape('\n');
    expect(lf.entries).toEqual([
      [
        'res/a.xml',
        [
          ['name', 'res/a.xml'],
          ['sha-256-digest', 'abcde'],
        ],
        23,
        64,
      ],
      [
        'b',
        [
          ['name', 'b'],
          ['x', '1'],
        ],
        64,
        77,
      ],
    ]);
    expect(shape('\r')).toEqual(lf);
    // CR LF: offsets count two bytes per line end, so compare the attributes only.
    const crlf = parseJarManifest(Buffer.from(text.replace(/\n/g, '\r\n')));
    expect([...crlf.entries].map(([k, s]) => [k, [...s.attributes]])).toEqual(lf.entries.map(([k, a]) => [k, a]));
    const mixed = parseJarManifest(Buffer.from('A: 1\r\nB: 2\r\rName: x\nD: q'));
    expect([...mixed.main.attributes]).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect([...mixed.entries.get('x')!.attributes]).toEqual([
      ['name', 'x'],
      ['d', 'q'],
    ]);
  });
});

// APK Signature Scheme v3.1 (block 0x1b93ad61): a rotated key applies from an API level named by the v3
// signer's rotation-min-sdk attribute (0x559f8b02), so that older platforms keep verifying the original
// key through v3. The apksigner on this machine cannot write v3.1, so the blocks are written here by
// the published format: an APK is rotated with apksigner (rsa-2048 → rsa-3072, the sample keys), then
// its signing block is rebuilt with a v3 signer (the old key, API 28–32, rotation-min-sdk 33) and a
// v3.1 signer (the new key with its lineage, API 33 on), each signed here with node:crypto. apksigner
// cross-checks the v3 and v2 signatures of the result (it does not read v3.1).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectAndroidPackageTool } from '../src/index.js';
import { APKSIG, runTool } from './support.js';

const V2 = 0x7109871a;
const V3 = 0xf05368c0;
const V31 = 0x1b93ad61;
const LINEAGE = 0x3ba06f8c;
const ROTATION_MIN_SDK = 0x559f8b02;
const RSA_SHA256 = 0x0103;

const u32 = (n: number) => Buffer.from(Uint32Array.of(n >>> 0).buffer);
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
/** A length-prefixed value, and a length-prefixed sequence of length-prefixed values. */
const lp = (...parts: Buffer[]) => Buffer.concat([u32(Buffer.concat(parts).length), ...parts]);
const seq = (items: Buffer[]) => lp(...items.map((i) => lp(i)));

/** The value [start, end) after the length prefix at `at`. */
function one(b: Buffer, at: number): [number, number] {
  return [at + 4, at + 4 + b.readUInt32LE(at)];
}

function values(b: Buffer, start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  for (let p = start; p < end; p = one(b, p)[1]) out.push(one(b, p));
  return out;
}

interface Parsed {
  head: Buffer;
  tail: Buffer;
  eocd: Buffer;
  pairs: Map<number, Buffer>;
}

/** An APK split around its signing block: entries, (id → value) pairs, central directory, EOCD. */
function parse(apk: Buffer): Parsed {
  const at = apk.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const cd = apk.readUInt32LE(at + 16);
  const start = cd - Number(apk.readBigUInt64LE(cd - 24)) - 8;
  const pairs = new Map<number, Buffer>();
  for (let p = start + 8; p < cd - 24;) {
    const length = Number(apk.readBigUInt64LE(p));
    pairs.set(apk.readUInt32LE(p + 8), apk.subarray(p + 12, p + 8 + length));
    p += 8 + length;
  }
  return { head: apk.subarray(0, start), tail: apk.subarray(cd, at), eocd: apk.subarray(at), pairs };
}

/** The APK with the signing block made of `pairs` (in order). */
function assemble(apk: Parsed, pairs: [number, Buffer][]): Buffer {
  const body = Buffer.concat(pairs.map(([id, v]) => Buffer.concat([u64(4 + v.length), u32(id), v])));
  const size = body.length + 24;
  const block = Buffer.concat([u64(size), body, u64(size), Buffer.from('APK Sig Block 42')]);
  const eocd = Buffer.from(apk.eocd);
  eocd.writeUInt32LE(apk.head.length + block.length, 16);
  return Buffer.concat([apk.head, block, apk.tail, eocd]);
}

/** The SHA-256 content digest and the lineage attribute of the v3 signer of the rotated APK. */
function fromRotated(v3: Buffer): { digest: Buffer; lineage: Buffer } {
  const [signer] = values(v3, ...one(v3, 0));
  const signedData = one(v3, signer![0]);
  const digests = one(v3, signedData[0]);
  const digest = values(v3, ...digests)
    .map(([s]) => ({ id: v3.readUInt32LE(s), value: v3.subarray(...one(v3, s + 4)) }))
    .find((d) => d.id === RSA_SHA256)!.value;
  const certificates = one(v3, digests[1]);
  const attributes = values(v3, ...one(v3, certificates[1] + 8));
  const lineage = attributes.find(([s]) => v3.readUInt32LE(s) === LINEAGE)!;
  return { digest, lineage: v3.subarray(lineage[0] + 4, lineage[1]) };
}

/** A v3/v3.1 block value with one signer of the sample key `key`, signing `digest` for [min, max]. */
function schemeBlock(key: string, digest: Buffer, min: number, max: number, attributes: [number, Buffer][]) {
  const cert = new X509Certificate(readFileSync(`${APKSIG}/${key}.x509.pem`));
  const signedData = Buffer.concat([
    seq([Buffer.concat([u32(RSA_SHA256), lp(digest)])]),
    seq([cert.raw]),
    u32(min),
    u32(max),
    seq(attributes.map(([id, v]) => Buffer.concat([u32(id), v]))),
  ]);
  const privateKey = createPrivateKey({ key: readFileSync(`${APKSIG}/${key}.pk8`), format: 'der', type: 'pkcs8' });
  const signature = sign('sha256', signedData, privateKey);
  const publicKey = cert.publicKey.export({ format: 'der', type: 'spki' });
  return seq([
    Buffer.concat([
      lp(signedData),
      u32(min),
      u32(max),
      seq([Buffer.concat([u32(RSA_SHA256), lp(signature)])]),
      lp(publicKey),
    ]),
  ]);
}

interface Verification {
  scheme: string;
  status: string;
  reason: string | null;
  accepted_sdk: { min_sdk: number | null; max_sdk: number | null }[];
}
interface Report {
  signing_block: {
    schemes: string[];
    signers: {
      scheme: string;
      certificates: { sha256: string }[];
      lineage: { certificate: { sha256: string } }[] | null;
    }[];
  };
  signature_verification: Verification[];
}

let dir: string;
const apks: Record<string, string> = {};
const sha256 = (key: string) =>
  new X509Certificate(readFileSync(`${APKSIG}/${key}.x509.pem`)).fingerprint256.replace(/:/g, '').toLowerCase();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-v31-'));
  const key = (name: string) => ['--key', `${APKSIG}/${name}.pk8`, '--cert', `${APKSIG}/${name}.x509.pem`];
  const lineage = join(dir, 'lineage.bin');
  execFileSync('apksigner', [
    'rotate',
    '--out',
    lineage,
    '--old-signer',
    ...key('rsa-2048'),
    '--new-signer',
    ...key('rsa-3072'),
  ]);
  const rotated = join(dir, 'rotated.apk');
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
  const apk = parse(readFileSync(rotated));
  const v2 = apk.pairs.get(V2)!;
  const { digest, lineage: proof } = fromRotated(apk.pairs.get(V3)!);
  const v3 = (from: number | null) =>
    schemeBlock('rsa-2048', digest, 28, 32, from === null ? [] : [[ROTATION_MIN_SDK, u32(from)]]);
  const v31 = schemeBlock('rsa-3072', digest, 33, 0x7fffffff, [[LINEAGE, proof]]);
  const tampered = Buffer.from(v31);
  tampered[tampered.length - 600]! ^= 1; // inside the signature (384 bytes), before the public key (426)
  const variants: Record<string, [number, Buffer][]> = {
    good: [
      [V2, v2],
      [V3, v3(33)],
      [V31, v31],
    ],
    stripped: [
      [V2, v2],
      [V3, v3(33)],
    ],
    mismatch: [
      [V2, v2],
      [V3, v3(34)],
      [V31, v31],
    ],
    unmarked: [
      [V2, v2],
      [V3, v3(null)],
      [V31, v31],
    ],
    alone: [
      [V2, v2],
      [V31, v31],
    ],
    tampered: [
      [V2, v2],
      [V3, v3(33)],
      [V31, tampered],
    ],
  };
  for (const [name, pairs] of Object.entries(variants)) {
    apks[name] = join(dir, `${name}.apk`);
    writeFileSync(apks[name]!, assemble(apk, pairs));
  }
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function verify(name: string): Promise<Record<string, Verification> & { report: Report }> {
  const { normalized_result } = await runTool<Report>(inspectAndroidPackageTool, { path: apks[name] });
  return Object.assign(Object.fromEntries(normalized_result.signature_verification.map((v) => [v.scheme, v])), {
    report: normalized_result,
  });
}

describe('APK Signature Scheme v3.1', () => {
  it('verifies a v3.1 signer with its lineage beside the v3 signer it supersedes from API 33', async () => {
    // apksigner reads v3 for API 28-32 and v2 below; it ignores v3.1 (and warns of the attribute).
    const apksigner = (min: string, max: string) => {
      const args = ['verify', '-v', '--print-certs', '--min-sdk-version', min, '--max-sdk-version', max, apks.good!];
      const run = spawnSync('apksigner', args, { encoding: 'utf8' });
      return `${run.stdout}${run.stderr}`;
    };
    const v3Text = apksigner('28', '32');
    expect(v3Text).toMatch(/^Verified using v3 scheme .*: true$/m);
    expect(v3Text).toContain(`Signer #1 certificate SHA-256 digest: ${sha256('rsa-2048')}`);
    expect(apksigner('24', '27')).toMatch(/^Verified using v2 scheme .*: true$/m);
    const result = await verify('good');
    expect([result.v2!.status, result.v3!.status, result['v3.1']!.status]).toEqual([
      'verified',
      'verified',
      'verified',
    ]);
    expect(result.v3!.accepted_sdk).toEqual([{ min_sdk: 28, max_sdk: 32 }]);
    expect(result['v3.1']!.accepted_sdk).toEqual([{ min_sdk: 33, max_sdk: null }]);
    const signers = result.report.signing_block.signers;
    const v31 = signers.find((s) => s.scheme === 'v3.1')!;
    expect(v31.certificates[0]!.sha256).toBe(sha256('rsa-3072'));
    expect(v31.lineage!.map((l) => l.certificate.sha256)).toEqual([sha256('rsa-2048'), sha256('rsa-3072')]);
    expect(signers.find((s) => s.scheme === 'v3')!.certificates[0]!.sha256).toBe(sha256('rsa-2048'));
  });

  it('fails v3 when the v3.1 block its rotation-min-sdk attribute announces was stripped', async () => {
    const result = await verify('stripped');
    expect(result['v3.1']!.status).toBe('absent');
    expect(result.v3!.status).toBe('failed');
    expect(result.v3!.reason).toMatch(/from API 33.*v3\.1 block is missing/);
    expect(result.v2!.status).toBe('verified');
  });

  it('fails v3 when its rotation-min-sdk attribute names another API level than the v3.1 signer', async () => {
    const result = await verify('mismatch');
    expect(result.v3!.reason).toMatch(/from API 34, but the v3\.1 block starts at API 33/);
    expect(result['v3.1']!.status).toBe('verified');
  });

  it('fails v3.1 without the v3 attribute that detects its stripping, or without a v3 block', async () => {
    for (const name of ['unmarked', 'alone']) {
      const result = await verify(name);
      expect(result['v3.1']!.status).toBe('failed');
      expect(result.v2!.status).toBe('verified');
    }
    expect((await verify('unmarked')).v3!.status).toBe('verified');
  });

  it('fails v3.1 alone when its signature is altered', async () => {
    const result = await verify('tampered');
    expect(result['v3.1']!.status).toBe('failed');
    expect(result['v3.1']!.reason).toMatch(/signature/);
    expect(result.v3!.status).toBe('verified');
  });
});

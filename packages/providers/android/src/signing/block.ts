// v2 / v3 / v3.1 verification (APK Signature Scheme): each signer's signatures over its signed data
// with its public key (which must be its first certificate's), and the digests it signs recomputed
// over the file: the ZIP entries before the block, the central directory and the end record (whose
// directory offset reads as the block's), in 1 MiB chunks.
import { X509Certificate, constants, createHash, createPublicKey, verify } from 'node:crypto';
import { isReaError, throwIfAborted } from '@rea/evidence';
import { Bytes } from '../format/bytes.js';
import { SCHEMES, blockPairs, locateSigningBlock, prefixed, sequence } from '../format/signingBlock.js';
import type { LocatedBlock, ReadAt } from '../format/signingBlock.js';
import { CheckFailed, outcome } from './result.js';
import type { SchemeVerification } from './result.js';

const CHUNK = 1024 * 1024;

/** Signature algorithm id → hash, key padding and whether its digest is the plain chunked one. */
const ALGORITHMS: Readonly<Record<number, { hash: string; pss?: number; chunked: boolean }>> = {
  0x0101: { hash: 'sha256', pss: 32, chunked: true },
  0x0102: { hash: 'sha512', pss: 64, chunked: true },
  0x0103: { hash: 'sha256', chunked: true },
  0x0104: { hash: 'sha512', chunked: true },
  0x0201: { hash: 'sha256', chunked: true },
  0x0202: { hash: 'sha512', chunked: true },
  0x0301: { hash: 'sha256', chunked: true },
  0x0421: { hash: 'sha256', chunked: false },
  0x0423: { hash: 'sha256', chunked: false },
  0x0425: { hash: 'sha256', chunked: false },
};

/** The chunked digest of the signed parts of the file, per hash. */
async function contentDigest(
  file: ReadAt,
  block: LocatedBlock,
  hash: string,
  signal: AbortSignal | undefined,
): Promise<Buffer> {
  const eocd = Buffer.alloc((await file.stat()).size - block.eocd);
  await file.read(eocd, 0, eocd.length, block.eocd);
  eocd.writeUInt32LE(block.start, 16);
  const sections: ([number, number] | Buffer)[] = [[0, block.start], [block.cd, block.eocd], eocd];
  const digests: Buffer[] = [];
  const buffer = Buffer.alloc(CHUNK);
  const prefix = Buffer.alloc(5);
  for (const section of sections) {
    const length = Buffer.isBuffer(section) ? section.length : section[1] - section[0];
    for (let at = 0; at < length; at += CHUNK) {
      throwIfAborted(signal, 'verifying');
      const n = Math.min(CHUNK, length - at);
      let chunk: Buffer;
      if (Buffer.isBuffer(section)) chunk = section.subarray(at, at + n);
      else {
        const { bytesRead } = await file.read(buffer, 0, n, section[0] + at);
        if (bytesRead !== n) throw new CheckFailed('the file is shorter than its ZIP directory says');
        chunk = buffer.subarray(0, n);
      }
      prefix[0] = 0xa5;
      prefix.writeUInt32LE(n, 1);
      digests.push(createHash(hash).update(prefix).update(chunk).digest());
    }
  }
  prefix[0] = 0x5a;
  prefix.writeUInt32LE(digests.length, 1);
  const top = createHash(hash).update(prefix);
  for (const d of digests) top.update(d);
  return top.digest();
}

interface Signer {
  signedData: Buffer;
  signatures: { id: number; value: Buffer }[];
  publicKey: Buffer;
  digests: { id: number; value: Buffer }[];
  certificates: Buffer[];
}

function signersOf(b: Bytes, v3: boolean, start: number, end: number): Signer[] {
  const [listStart, listEnd] = prefixed(b, start, end);
  return sequence(b, listStart, listEnd).map(([s, e]) => {
    const [sd, sdEnd] = prefixed(b, s, e);
    const after = v3 ? sdEnd + 8 : sdEnd;
    const [sg, sgEnd] = prefixed(b, after, e);
    const [pk, pkEnd] = prefixed(b, sgEnd, e);
    const pairs = (from: number, to: number) =>
      sequence(b, from, to).map(([ps, pe]) => {
        const [v, vEnd] = prefixed(b, ps + 4, pe);
        return { id: b.u32(ps), value: b.buffer.subarray(v, vEnd) };
      });
    const [dg, dgEnd] = prefixed(b, sd, sdEnd);
    const [cs, csEnd] = prefixed(b, dgEnd, sdEnd);
    if (v3 && (b.u32(csEnd) !== b.u32(sdEnd) || b.u32(csEnd + 4) !== b.u32(sdEnd + 4)))
      throw new CheckFailed('the SDK range of a signer differs from the one it signs');
    return {
      signedData: b.buffer.subarray(sd, sdEnd),
      signatures: pairs(sg, sgEnd),
      publicKey: b.buffer.subarray(pk, pkEnd),
      digests: pairs(dg, dgEnd),
      certificates: sequence(b, cs, csEnd).map(([c, ce]) => b.buffer.subarray(c, ce)),
    };
  });
}

async function verifyScheme(
  file: ReadAt,
  block: LocatedBlock,
  scheme: SchemeVerification['scheme'],
  range: { start: number; end: number },
  cache: Map<string, Buffer>,
  signal: AbortSignal | undefined,
): Promise<SchemeVerification> {
  let count = 0;
  try {
    const signers = signersOf(new Bytes(block.buffer, 'APK Signing Block'), scheme !== 'v2', range.start, range.end);
    count = signers.length;
    if (signers.length === 0) throw new CheckFailed('no signer');
    for (const [n, signer] of signers.entries()) {
      const who = `signer ${n + 1}`;
      const key = createPublicKey({ key: signer.publicKey, format: 'der', type: 'spki' });
      const first = signer.certificates[0];
      if (first === undefined) throw new CheckFailed(`${who}: no certificate`);
      const certKey = new X509Certificate(first).publicKey.export({ format: 'der', type: 'spki' });
      if (!certKey.equals(key.export({ format: 'der', type: 'spki' })))
        throw new CheckFailed(`${who}: the public key is not its certificate's`);
      const known = signer.signatures.filter((s) => ALGORITHMS[s.id] !== undefined);
      if (known.length === 0) throw new CheckFailed(`${who}: no supported signature algorithm`);
      if (signer.signatures.map((s) => s.id).join() !== signer.digests.map((d) => d.id).join())
        throw new CheckFailed(`${who}: the signature and digest algorithm lists differ`);
      for (const s of known) {
        const alg = ALGORITHMS[s.id]!;
        const options = alg.pss ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: alg.pss } : key;
        if (!verify(alg.hash, signer.signedData, options, s.value))
          throw new CheckFailed(`${who}: the signature (0x${s.id.toString(16)}) does not match its signed data`);
      }
      const chunked = signer.digests.filter((d) => ALGORITHMS[d.id]?.chunked);
      if (chunked.length === 0)
        return outcome(scheme, 'unsupported', 'only verity digests, which are not recomputed', count);
      for (const d of chunked) {
        const hash = ALGORITHMS[d.id]!.hash;
        let actual = cache.get(hash);
        if (actual === undefined) cache.set(hash, (actual = await contentDigest(file, block, hash, signal)));
        if (!actual.equals(d.value)) throw new CheckFailed(`${who}: the contents digest does not match the file`);
      }
    }
    return outcome(scheme, 'verified', null, count);
  } catch (error) {
    if (error instanceof CheckFailed) return outcome(scheme, 'failed', error.message, count);
    if (isReaError(error) && error.code === 'cancelled') throw error;
    return outcome(scheme, 'failed', (error as Error).message, count);
  }
}

/** v2, v3 and v3.1 outcomes of the APK in `file` (`absent` for each scheme its block lacks). */
export async function verifySigningBlock(file: ReadAt, signal: AbortSignal | undefined): Promise<SchemeVerification[]> {
  const located = await locateSigningBlock(file, (await file.stat()).size);
  const schemes = ['v2', 'v3', 'v3.1'] as const;
  if (located === null) return schemes.map((s) => outcome(s, 'absent'));
  if (typeof located === 'string') return schemes.map((s) => outcome(s, 'failed', located));
  const problems: string[] = [];
  const pairs = blockPairs(located.buffer, problems);
  const cache = new Map<string, Buffer>();
  const out: SchemeVerification[] = [];
  for (const scheme of schemes) {
    const pair = pairs.find((p) => SCHEMES[p.id] === scheme);
    if (pair === undefined) out.push(outcome(scheme, problems.length > 0 ? 'failed' : 'absent', problems[0] ?? null));
    else out.push(await verifyScheme(file, located, scheme, pair, cache, signal));
  }
  return out;
}

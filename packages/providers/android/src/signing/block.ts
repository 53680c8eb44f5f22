// v2 / v3 / v3.1 verification (APK Signature Scheme): each signer's signatures over its signed data
// with its public key (which must be its first certificate's), and the digests it signs recomputed
// over the file (see ./fileDigests.ts) unless the caller computed them already.
import { X509Certificate, createPublicKey } from 'node:crypto';
import { isReaError } from '@rea/evidence';
import { Bytes } from '../format/bytes.js';
import {
  PROOF_OF_ROTATION,
  SCHEMES,
  blockPairs,
  locateSigningBlock,
  prefixed,
  sequence,
} from '../format/signingBlock.js';
import type { LocatedBlock, ReadAt } from '../format/signingBlock.js';
import { ALGORITHMS, signatureMatches } from './algorithms.js';
import { digestFile } from './fileDigests.js';
import { blockSignerSdk } from './sdk.js';
import { checkLineage } from './lineage.js';
import { CheckFailed, outcome } from './result.js';
import type { SchemeVerification } from './result.js';

interface Signer {
  signedData: Buffer;
  signatures: { id: number; value: Buffer }[];
  publicKey: Buffer;
  digests: { id: number; value: Buffer }[];
  certificates: Buffer[];
  /** A v3 signer's proof-of-rotation attribute value (its key-rotation lineage), or null. */
  lineage: Buffer | null;
  /** The SDK range a v3 signer declares, else null. */
  declared: { min: number; max: number } | null;
  /** A v3 signer's rotation-min-sdk attribute: the API level from which its v3.1 block applies, or null. */
  rotationMinSdk: number | null;
}

/** The additional attribute of a v3 signer naming the API level from which the v3.1 block applies. */
const ROTATION_MIN_SDK = 0x559f8b02;

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
    let lineage: Buffer | null = null;
    let rotationMinSdk: number | null = null;
    if (v3 && csEnd + 12 <= sdEnd) {
      const [aa, aaEnd] = prefixed(b, csEnd + 8, sdEnd);
      for (const [as, ae] of sequence(b, aa, aaEnd)) {
        if (ae - as >= 4 && b.u32(as) === PROOF_OF_ROTATION) lineage = b.buffer.subarray(as + 4, ae);
        if (ae - as >= 8 && b.u32(as) === ROTATION_MIN_SDK) rotationMinSdk = b.u32(as + 4);
      }
    }
    return {
      lineage,
      rotationMinSdk,
      declared: v3 ? { min: b.u32(csEnd), max: b.u32(csEnd + 4) } : null,
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
  scheme: Exclude<SchemeVerification['scheme'], 'v1'>,
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
        if (!signatureMatches(s.id, key, signer.signedData, s.value))
          throw new CheckFailed(`${who}: the signature (0x${s.id.toString(16)}) does not match its signed data`);
      }
      if (signer.lineage !== null) checkLineage(signer.lineage, first, who);
      const chunked = signer.digests.filter((d) => ALGORITHMS[d.id]?.chunked);
      if (chunked.length === 0)
        return outcome(scheme, 'unsupported', 'only verity digests, which are not recomputed', count);
      for (const d of chunked) {
        const hash = ALGORITHMS[d.id]!.hash;
        let actual = cache.get(hash);
        if (actual === undefined) {
          const size = (await file.stat()).size;
          actual = (await digestFile(file, size, block, [hash], false, signal)).chunked.get(hash)!;
          cache.set(hash, actual);
        }
        if (!actual.equals(d.value)) throw new CheckFailed(`${who}: the contents digest does not match the file`);
      }
    }
    const accepted = signers.map((s) =>
      blockSignerSdk(
        scheme,
        s.signatures.map((g) => g.id),
        s.declared,
      ),
    );
    return outcome(scheme, 'verified', null, count, accepted);
  } catch (error) {
    if (error instanceof CheckFailed) return outcome(scheme, 'failed', error.message, count);
    if (isReaError(error) && error.code === 'cancelled') throw error;
    return outcome(scheme, 'failed', (error as Error).message, count);
  }
}

/**
 * v2, v3 and v3.1 outcomes of the APK in `file` (`absent` for each scheme its block lacks). `digests`
 * holds content digests of this file computed already, by hash (see {@link digestFile}).
 */
export async function verifySigningBlock(
  file: ReadAt,
  signal: AbortSignal | undefined,
  digests: ReadonlyMap<string, Buffer> = new Map(),
): Promise<SchemeVerification[]> {
  const located = await locateSigningBlock(file, (await file.stat()).size);
  const schemes = ['v2', 'v3', 'v3.1'] as const;
  if (located === null) return schemes.map((s) => outcome(s, 'absent'));
  if (typeof located === 'string') return schemes.map((s) => outcome(s, 'failed', located));
  const problems: string[] = [];
  const pairs = blockPairs(located.buffer, problems);
  const cache = new Map<string, Buffer>(digests);
  const out: SchemeVerification[] = [];
  for (const scheme of schemes) {
    const pair = pairs.find((p) => SCHEMES[p.id] === scheme);
    if (pair === undefined) out.push(outcome(scheme, problems.length > 0 ? 'failed' : 'absent', problems[0] ?? null));
    else out.push(await verifyScheme(file, located, scheme, pair, cache, signal));
  }
  return checkRotation(located, pairs, out);
}

/**
 * The v3 and v3.1 blocks checked against each other, as Android does before reading a v3.1 block: a
 * v3 signer's rotation-min-sdk attribute must name the lowest API level of the v3.1 signers (a v3.1
 * block stripped from the APK fails v3 this way), a v3.1 block needs a v3 block carrying that attribute.
 */
function checkRotation(
  located: LocatedBlock,
  pairs: { id: number; start: number; end: number }[],
  out: SchemeVerification[],
): SchemeVerification[] {
  const signers = (scheme: string): Signer[] | null => {
    const pair = pairs.find((p) => SCHEMES[p.id] === scheme);
    if (pair === undefined) return null;
    try {
      return signersOf(new Bytes(located.buffer, 'APK Signing Block'), true, pair.start, pair.end);
    } catch {
      return [];
    }
  };
  const fail = (scheme: 'v3' | 'v3.1', why: string) => {
    const at = out.findIndex((o) => o.scheme === scheme);
    if (out[at]?.status === 'verified') out[at] = outcome(scheme, 'failed', why, out[at]!.signers);
  };
  const v3 = signers('v3');
  const v31 = signers('v3.1');
  if (v31 !== null && v3 === null) fail('v3.1', 'the v3.1 block has no v3 block beside it');
  if (v3 === null) return out;
  const from = v31 === null ? null : Math.min(...v31.map((s) => s.declared?.min ?? 0));
  const named = v3.map((s) => s.rotationMinSdk).filter((n): n is number => n !== null);
  for (const sdk of named) {
    if (from === null)
      fail('v3', `the v3 signer says key rotation applies from API ${sdk}, but the v3.1 block is missing (stripped)`);
    else if (sdk !== from)
      fail('v3', `the v3 signer says key rotation applies from API ${sdk}, but the v3.1 block starts at API ${from}`);
  }
  if (v31 !== null && named.length === 0)
    fail('v3.1', 'the v3 signer lacks the rotation-min-sdk attribute that detects a stripped v3.1 block');
  return out;
}

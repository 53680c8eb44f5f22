// The signature algorithms of APK Signature Scheme v2/v3 (and of v3 key-rotation lineages), by id.
import { constants, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** One algorithm: its hash, RSA-PSS salt length if PSS, and whether its digest is the plain chunked one. */
export interface BlockAlgorithm {
  hash: string;
  pss?: number;
  chunked: boolean;
}

/** Signature algorithm id → how to check it. */
export const ALGORITHMS: Readonly<Record<number, BlockAlgorithm>> = {
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

/** True when `signature` is `key`'s signature of `data` with algorithm `id` (which must be known). */
export function signatureMatches(id: number, key: KeyObject, data: Buffer, signature: Buffer): boolean {
  const alg = ALGORITHMS[id]!;
  const options = alg.pss ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: alg.pss } : key;
  return verify(alg.hash, data, options, signature);
}

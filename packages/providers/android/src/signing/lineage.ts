// The proof of rotation of a v3 signer: its signing certificates from the oldest to its own, each node
// signed by the one before it. A node holds its signed data (its certificate, then the id of the
// algorithm its parent signed it with), its flags, the algorithm it signs its child with, and the
// parent's signature over its signed data (empty for the first node). Android accepts a lineage only
// when every signature verifies with the parent's certificate, each node names the algorithm its
// parent declared, no certificate repeats, and the last certificate is the signer's own.
import { X509Certificate } from 'node:crypto';
import { Bytes } from '../format/bytes.js';
import { prefixed, sequence } from '../format/signingBlock.js';
import { ALGORITHMS, signatureMatches } from './algorithms.js';
import { CheckFailed } from './result.js';

/**
 * Checks the lineage in `value` (a proof-of-rotation attribute value) of the signer `who` whose own
 * certificate is `certificate`; a broken lineage is a {@link CheckFailed} saying which node and why.
 */
export function checkLineage(value: Buffer, certificate: Buffer, who: string): void {
  const fail = (why: string) => new CheckFailed(`${who}: the key-rotation lineage is broken: ${why}`);
  const b = new Bytes(value, 'proof-of-rotation attribute');
  let nodes: [number, number][];
  try {
    if (b.u32(0, 'lineage version') !== 1) throw fail('unknown lineage version');
    nodes = sequence(b, 4, value.length);
  } catch (error) {
    if (error instanceof CheckFailed) throw error;
    throw fail((error as Error).message);
  }
  if (nodes.length === 0) throw fail('it has no certificate');
  let parent: { certificate: X509Certificate; algorithm: number } | null = null;
  const seen = new Set<string>();
  for (const [n, [start, end]] of nodes.entries()) {
    const node = `certificate ${n + 1}`;
    let signedData: Buffer, der: Buffer, namedAlgorithm: number, algorithm: number, signature: Buffer;
    try {
      const [sd, sdEnd] = prefixed(b, start, end);
      const [c, ce] = prefixed(b, sd, sdEnd);
      signedData = value.subarray(sd, sdEnd);
      der = value.subarray(c, ce);
      namedAlgorithm = b.u32(ce, 'signed algorithm id');
      algorithm = b.u32(sdEnd + 4, 'algorithm id');
      const [sg, sgEnd] = prefixed(b, sdEnd + 8, end);
      signature = value.subarray(sg, sgEnd);
    } catch (error) {
      throw fail(`${node} is malformed (${(error as Error).message})`);
    }
    let current: X509Certificate;
    try {
      current = new X509Certificate(der);
    } catch {
      throw fail(`${node} is not an X.509 certificate`);
    }
    if (parent !== null) {
      if (namedAlgorithm !== parent.algorithm)
        throw fail(
          `${node} names algorithm 0x${namedAlgorithm.toString(16)}, not its parent's 0x${parent.algorithm.toString(16)}`,
        );
      if (ALGORITHMS[parent.algorithm] === undefined)
        throw fail(`${node} is signed with unsupported algorithm 0x${parent.algorithm.toString(16)}`);
      let valid: boolean;
      try {
        valid = signatureMatches(parent.algorithm, parent.certificate.publicKey, signedData, signature);
      } catch {
        valid = false;
      }
      if (!valid) throw fail(`the signature of ${node} does not verify with the key of certificate ${n}`);
    }
    const print = current.fingerprint256;
    if (seen.has(print)) throw fail(`${node} repeats an earlier certificate`);
    seen.add(print);
    parent = { certificate: current, algorithm };
  }
  if (!parent!.certificate.raw.equals(certificate)) throw fail("its last certificate is not the signer's");
}

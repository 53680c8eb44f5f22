// Checking a JAR signature block (PKCS #7 SignedData, detached): each SignerInfo's signature over its
// signature file (or over its signed attributes, whose message digest must be the file's), with the
// key of the certificate it names.
import { X509Certificate, createHash, verify } from 'node:crypto';
import { derAt, derChildren, oidText } from '../format/der.js';
import type { DerNode } from '../format/der.js';
import { CheckFailed, HASH_BY_OID } from './result.js';

const SIGNED_DATA = '1.2.840.113549.1.7.2';
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';

/** Hash named by a signature algorithm OID that fixes one (sha256WithRSA, ecdsa-with-SHA256, …). */
const HASH_BY_SIGNATURE_OID: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.14': 'sha224',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10040.4.3': 'sha1',
  '2.16.840.1.101.3.4.3.1': 'sha224',
  '2.16.840.1.101.3.4.3.2': 'sha256',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.1': 'sha224',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

function bytesOf(der: Buffer, node: DerNode): Buffer {
  return der.subarray(node.start, node.end);
}

/** A Name compared as X.500 names are: attribute by attribute, whatever string type, case-insensitively. */
function nameKey(der: Buffer, name: DerNode): string {
  const parts: string[] = [];
  for (const rdn of derChildren(der, name)) {
    for (const pair of derChildren(der, rdn)) {
      const [oid, value] = derChildren(der, pair);
      if (oid === undefined || value === undefined) continue;
      const raw = der.subarray(value.content, value.end);
      const text = value.tag === 0x1e ? Buffer.from(raw).swap16().toString('utf16le') : raw.toString('utf8');
      parts.push(`${oidText(der, oid)}=${text.trim().replace(/\s+/g, ' ').toLowerCase()}`);
    }
  }
  return parts.join(',');
}

/** Issuer (compared form) and serial (content bytes) of a certificate. */
function issuerAndSerial(cert: Buffer): { issuer: string; serial: Buffer } {
  const tbs = derChildren(cert, derAt(cert, 0))[0]!;
  const fields = derChildren(cert, tbs);
  const i = fields[0]?.tag === 0xa0 ? 1 : 0;
  const serial = fields[i];
  const issuer = fields[i + 2];
  if (serial === undefined || issuer === undefined) throw new CheckFailed('a certificate is missing fields');
  return { issuer: nameKey(cert, issuer), serial: cert.subarray(serial.content, serial.end) };
}

/**
 * Verifies the PKCS #7 block `block` over the signature file `signed`. Returns each signer's digest
 * and signature algorithm OIDs; throws {@link CheckFailed} naming the first signer that does not
 * verify (or a structure that cannot be read, or no signer at all).
 */
export function verifyPkcs7(block: Buffer, signed: Buffer): { digest: string; signature: string }[] {
  let root: DerNode;
  let children: DerNode[];
  try {
    root = derAt(block, 0);
    children = derChildren(block, root);
  } catch {
    throw new CheckFailed('the signature block is not DER');
  }
  const [oid, wrapped] = children;
  if (oid === undefined || wrapped === undefined || oidText(block, oid) !== SIGNED_DATA)
    throw new CheckFailed('the signature block is not a PKCS #7 SignedData');
  const signedData = derChildren(block, wrapped)[0];
  if (signedData === undefined) throw new CheckFailed('the SignedData is empty');
  const parts = derChildren(block, signedData);
  const certNode = parts.find((n) => n.tag === 0xa0);
  const certs = certNode === undefined ? [] : derChildren(block, certNode).map((c) => bytesOf(block, c));
  const infos = parts.at(-1);
  if (infos === undefined || infos.tag !== 0x31) throw new CheckFailed('the SignedData has no signer infos');
  const signers = derChildren(block, infos);
  if (signers.length === 0) throw new CheckFailed('the SignedData has no signer');
  return signers.map((info, n) => {
    const [, sid, digestAlg, ...rest] = derChildren(block, info);
    if (sid === undefined || digestAlg === undefined || sid.tag !== 0x30)
      throw new CheckFailed(`signer ${n + 1}: unsupported signer identifier`);
    const [issuer, serial] = derChildren(block, sid);
    const cert = certs.find((c) => {
      const id = issuerAndSerial(c);
      return id.issuer === nameKey(block, issuer!) && id.serial.equals(block.subarray(serial!.content, serial!.end));
    });
    if (cert === undefined) throw new CheckFailed(`signer ${n + 1}: its certificate is not in the block`);
    const digestOid = oidText(block, derChildren(block, digestAlg)[0]!);
    const hash = HASH_BY_OID[digestOid];
    if (hash === undefined) throw new CheckFailed(`signer ${n + 1}: unsupported digest algorithm ${digestOid}`);
    const attrs = rest[0]?.tag === 0xa0 ? rest.shift()! : null;
    const [sigAlg, signature] = rest;
    if (sigAlg === undefined || signature === undefined || signature.tag !== 0x04)
      throw new CheckFailed(`signer ${n + 1}: no signature`);
    let data = signed;
    if (attrs !== null) {
      const digest = derChildren(block, attrs)
        .map((a) => derChildren(block, a))
        .find(([o]) => o !== undefined && oidText(block, o) === MESSAGE_DIGEST)?.[1];
      const value = digest === undefined ? undefined : derChildren(block, digest)[0];
      if (value === undefined) throw new CheckFailed(`signer ${n + 1}: signed attributes without a message digest`);
      if (!block.subarray(value.content, value.end).equals(createHash(hash).update(signed).digest()))
        throw new CheckFailed(`signer ${n + 1}: the signature file does not match its signed message digest`);
      data = Buffer.from(bytesOf(block, attrs));
      data[0] = 0x31; // signed over as a SET OF, not as the [0] IMPLICIT it is stored as
    }
    const signatureOid = oidText(block, derChildren(block, sigAlg)[0]!);
    const sigHash = HASH_BY_SIGNATURE_OID[signatureOid] ?? hash;
    let ok: boolean;
    try {
      ok = verify(sigHash, data, new X509Certificate(cert).publicKey, block.subarray(signature.content, signature.end));
    } catch (error) {
      throw new CheckFailed(`signer ${n + 1}: ${(error as Error).message}`);
    }
    if (!ok) throw new CheckFailed(`signer ${n + 1}: the signature does not match the signature file`);
    return { digest: digestOid, signature: signatureOid };
  });
}

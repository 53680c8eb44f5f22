import { createHash } from 'node:crypto';
import { malformed } from './bytes.js';

/** One DER element: its tag, and where its content lies in the buffer. */
export interface DerNode {
  tag: number;
  start: number;
  /** Offset of the content. */
  content: number;
  end: number;
}

/** Deepest nesting walked; certificates need far less. */
const MAX_DEPTH = 32;

/** Reads the DER element at `at`, checking that it lies within `limit` (definite lengths only). */
export function derAt(buffer: Buffer, at: number, limit = buffer.length): DerNode {
  if (at + 2 > limit) throw malformed('DER', 'element runs past its container', { offset: at });
  const tag = buffer[at]!;
  if ((tag & 0x1f) === 0x1f) throw malformed('DER', 'multi-byte tags are not used here', { offset: at });
  let length = buffer[at + 1]!;
  let content = at + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0 || n > 4 || content + n > limit) throw malformed('DER', 'unsupported length encoding', { offset: at });
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + buffer[content + i]!;
    content += n;
  }
  if (content + length > limit) throw malformed('DER', 'element runs past its container', { offset: at });
  return { tag, start: at, content, end: content + length };
}

/** The child elements of a constructed element. */
export function derChildren(buffer: Buffer, node: DerNode, depth = 0): DerNode[] {
  if (depth > MAX_DEPTH) throw malformed('DER', 'nesting too deep');
  const out: DerNode[] = [];
  let at = node.content;
  while (at < node.end) {
    const child = derAt(buffer, at, node.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

/** Dotted text of an OBJECT IDENTIFIER's content. */
export function oidText(buffer: Buffer, node: DerNode): string {
  const parts: number[] = [];
  let value = 0;
  for (let i = node.content; i < node.end; i++) {
    value = value * 128 + (buffer[i]! & 0x7f);
    if ((buffer[i]! & 0x80) === 0) {
      if (parts.length === 0) parts.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

const NAME_KEYS: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

const KEY_ALGORITHMS: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.1.1': 'RSA',
  '1.2.840.10045.2.1': 'EC',
  '1.2.840.10040.4.1': 'DSA',
};

function stringOf(buffer: Buffer, node: DerNode): string {
  const raw = buffer.subarray(node.content, node.end);
  if (node.tag === 0x1e && raw.length % 2 === 0) return Buffer.from(raw).swap16().toString('utf16le');
  return node.tag === 0x0c ? raw.toString('utf8') : raw.toString('latin1');
}

function nameText(buffer: Buffer, name: DerNode): string {
  const parts: string[] = [];
  for (const rdn of derChildren(buffer, name)) {
    for (const pair of derChildren(buffer, rdn)) {
      const [oid, value] = derChildren(buffer, pair);
      if (oid === undefined || value === undefined) continue;
      const key = oidText(buffer, oid);
      parts.push(`${NAME_KEYS[key] ?? key}=${stringOf(buffer, value)}`);
    }
  }
  return parts.join(', ');
}

function timeText(buffer: Buffer, node: DerNode): string {
  const t = buffer.toString('latin1', node.content, node.end);
  const full = node.tag === 0x17 ? `${Number(t.slice(0, 2)) >= 50 ? '19' : '20'}${t}` : t;
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(full);
  return m === null ? t : `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
}

/** What a certificate says about its holder and issuer. */
export interface CertificateSummary {
  subject: string;
  issuer: string;
  /** Serial number in hex, as written (leading zero byte dropped). */
  serial: string;
  not_before: string;
  not_after: string;
  public_key_algorithm: string;
  /** SHA-256 of the DER certificate, lowercase hex. */
  sha256: string;
}

/** Summarizes the X.509 certificate in `der` (the whole buffer). Faults are `malformed` (format DER). */
export function certificateSummary(der: Buffer): CertificateSummary {
  const cert = derAt(der, 0);
  const [tbs] = derChildren(der, cert);
  if (tbs === undefined || tbs.tag !== 0x30) throw malformed('DER', 'not an X.509 certificate');
  const fields = derChildren(der, tbs);
  let i = fields[0]?.tag === 0xa0 ? 1 : 0;
  const serial = fields[i++];
  i++; // signature algorithm
  const issuer = fields[i++];
  const validity = fields[i++];
  const subject = fields[i++];
  const spki = fields[i];
  if (
    serial === undefined ||
    issuer === undefined ||
    validity === undefined ||
    subject === undefined ||
    spki === undefined
  ) {
    throw malformed('DER', 'certificate is missing fields');
  }
  const [notBefore, notAfter] = derChildren(der, validity);
  const algorithm = derChildren(der, derChildren(der, spki)[0]!)[0];
  const key = algorithm === undefined ? '' : oidText(der, algorithm);
  let serialHex = der.toString('hex', serial.content, serial.end);
  if (serialHex.startsWith('00') && serialHex.length > 2) serialHex = serialHex.slice(2);
  return {
    subject: nameText(der, subject),
    issuer: nameText(der, issuer),
    serial: serialHex,
    not_before: notBefore === undefined ? '' : timeText(der, notBefore),
    not_after: notAfter === undefined ? '' : timeText(der, notAfter),
    public_key_algorithm: KEY_ALGORITHMS[key] ?? key,
    sha256: createHash('sha256').update(der.subarray(0, cert.end)).digest('hex'),
  };
}

/** The certificates of a PKCS #7 SignedData (a JAR signature block: META-INF/*.RSA, .DSA, .EC). */
export function pkcs7Certificates(der: Buffer): Buffer[] {
  const info = derAt(der, 0);
  const [oid, wrapped] = derChildren(der, info);
  if (oid === undefined || oidText(der, oid) !== '1.2.840.113549.1.7.2' || wrapped === undefined) {
    throw malformed('DER', 'not a PKCS #7 SignedData');
  }
  const signedData = derChildren(der, wrapped)[0];
  if (signedData === undefined) throw malformed('DER', 'empty SignedData');
  const certs = derChildren(der, signedData).find((n) => n.tag === 0xa0);
  if (certs === undefined) return [];
  return derChildren(der, certs).map((c) => der.subarray(c.start, c.end));
}

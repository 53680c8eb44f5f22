import type { FileHandle } from 'node:fs/promises';
import { Bytes, malformed } from './bytes.js';
import { certificateSummary } from './der.js';
import type { CertificateSummary } from './der.js';

/** Largest APK Signing Block read; a larger declared size is reported, not read. */
export const MAX_SIGNING_BLOCK = 16 * 1024 * 1024;

const SCHEMES: Readonly<Record<number, string>> = {
  0x7109871a: 'v2',
  0xf05368c0: 'v3',
  0x1b93ad61: 'v3.1',
};

const ALGORITHMS: Readonly<Record<number, string>> = {
  0x0101: 'RSASSA-PSS with SHA2-256',
  0x0102: 'RSASSA-PSS with SHA2-512',
  0x0103: 'RSASSA-PKCS1-v1_5 with SHA2-256',
  0x0104: 'RSASSA-PKCS1-v1_5 with SHA2-512',
  0x0201: 'ECDSA with SHA2-256',
  0x0202: 'ECDSA with SHA2-512',
  0x0301: 'DSA with SHA2-256',
  0x0421: 'RSASSA-PKCS1-v1_5 with SHA2-256 (verity)',
  0x0423: 'ECDSA with SHA2-256 (verity)',
  0x0425: 'DSA with SHA2-256 (verity)',
};

/** One signer of a v2/v3 scheme. */
export interface BlockSigner {
  scheme: string;
  certificates: CertificateSummary[];
  digests: { algorithm: string; digest: string }[];
  min_sdk: number | null;
  max_sdk: number | null;
}

/** What the APK Signing Block holds. */
export interface SigningBlock {
  present: boolean;
  schemes: string[];
  signers: BlockSigner[];
  /** Ids (hex) of other blocks present and not decoded (source stamp, padding, …). */
  other_blocks: string[];
  /** Faults met while decoding. */
  problems: string[];
}

function sequence(b: Bytes, start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  let p = start;
  while (p < end) {
    const len = b.u32(p, 'length prefix');
    b.need(p + 4, len, 'length-prefixed value');
    if (p + 4 + len > end) throw malformed('APK Signing Block', 'a value runs past its container');
    out.push([p + 4, p + 4 + len]);
    p += 4 + len;
  }
  return out;
}

function prefixed(b: Bytes, at: number, end: number): [number, number] {
  const len = b.u32(at, 'length prefix');
  if (at + 4 + len > end) throw malformed('APK Signing Block', 'a value runs past its container');
  return [at + 4, at + 4 + len];
}

function signersOf(b: Bytes, scheme: string, start: number, end: number): BlockSigner[] {
  const [listStart, listEnd] = prefixed(b, start, end);
  return sequence(b, listStart, listEnd).map(([s, e]) => {
    const [sd, sdEnd] = prefixed(b, s, e);
    const [dg, dgEnd] = prefixed(b, sd, sdEnd);
    const digests = sequence(b, dg, dgEnd).map(([ds, de]) => {
      const [v, vEnd] = prefixed(b, ds + 4, de);
      const id = b.u32(ds);
      return { algorithm: ALGORITHMS[id] ?? `0x${id.toString(16)}`, digest: b.buffer.toString('hex', v, vEnd) };
    });
    const [cs, csEnd] = prefixed(b, dgEnd, sdEnd);
    const certificates = sequence(b, cs, csEnd).map(([c, ce]) => certificateSummary(b.buffer.subarray(c, ce)));
    const v3 = scheme !== 'v2';
    return {
      scheme,
      certificates,
      digests,
      min_sdk: v3 ? b.u32(csEnd) : null,
      max_sdk: v3 ? b.u32(csEnd + 4) : null,
    };
  });
}

/** Offset of the central directory, from the end-of-central-directory record, or null when absent. */
async function centralDirectory(file: FileHandle, size: number): Promise<number | null> {
  const tail = Math.min(size, 65_535 + 22);
  const buffer = Buffer.alloc(tail);
  await file.read(buffer, 0, tail, size - tail);
  for (let i = tail - 22; i >= 0; i--) {
    if (buffer.readUInt32LE(i) === 0x06054b50) return buffer.readUInt32LE(i + 16);
  }
  return null;
}

/**
 * Reads the APK Signing Block before the central directory of the ZIP in `file` and decodes the v2,
 * v3 and v3.1 signers: their certificates and the digests they sign. Signatures are not verified. A
 * block that cannot be decoded is reported in `problems`, never thrown.
 */
export async function readSigningBlock(file: FileHandle, size: number): Promise<SigningBlock> {
  const none: SigningBlock = { present: false, schemes: [], signers: [], other_blocks: [], problems: [] };
  const cd = await centralDirectory(file, size);
  if (cd === null || cd < 32 || cd > size) return none;
  const footer = Buffer.alloc(24);
  await file.read(footer, 0, 24, cd - 24);
  if (footer.toString('latin1', 8) !== 'APK Sig Block 42') return none;
  const blockSize = Number(footer.readBigUInt64LE(0));
  if (blockSize > MAX_SIGNING_BLOCK || blockSize + 8 > cd || blockSize < 24) {
    return { ...none, present: true, problems: [`signing block size ${blockSize} is out of range`] };
  }
  const buffer = Buffer.alloc(blockSize + 8);
  await file.read(buffer, 0, buffer.length, cd - blockSize - 8);
  const b = new Bytes(buffer, 'APK Signing Block');
  const out: SigningBlock = { present: true, schemes: [], signers: [], other_blocks: [], problems: [] };
  if (Number(buffer.readBigUInt64LE(0)) !== blockSize) {
    return { ...out, problems: ['the two sizes of the signing block disagree'] };
  }
  let p = 8;
  const end = buffer.length - 24;
  while (p + 12 <= end) {
    const len = Number(buffer.readBigUInt64LE(p));
    if (len < 4 || p + 8 + len > end) {
      out.problems.push(`pair at ${p} runs past the block`);
      break;
    }
    const id = b.u32(p + 8);
    const scheme = SCHEMES[id];
    if (scheme !== undefined) {
      out.schemes.push(scheme);
      try {
        out.signers.push(...signersOf(b, scheme, p + 12, p + 8 + len));
      } catch (error) {
        out.problems.push(`${scheme}: ${(error as Error).message}`);
      }
    } else if (id !== 0x42726577) {
      out.other_blocks.push(`0x${id.toString(16)}`);
    }
    p += 8 + len;
  }
  return out;
}

import { fstatSync, readSync } from 'node:fs';
import { Bytes, malformed } from './bytes.js';
import { certificateSummary } from './der.js';
import type { CertificateSummary } from './der.js';

/** Largest APK Signing Block read; a larger declared size is reported, not read. */
export const MAX_SIGNING_BLOCK = 16 * 1024 * 1024;

/** Positioned reads of a file or of bytes in memory (a `FileHandle` is one; see {@link bufferReader}). */
export interface ReadAt {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number }>;
}

/**
 * Positioned reads of the open file `fd`, made at once on this thread: a few small reads of a local
 * file cost microseconds, where each asynchronous one is a round trip through the thread pool.
 */
export function descriptorReader(fd: number): ReadAt {
  return {
    read: async (buffer, offset, length, position) => ({ bytesRead: readSync(fd, buffer, offset, length, position) }),
    stat: async () => fstatSync(fd),
  };
}

/** Positioned reads of `bytes` (an APK held in memory, such as one nested in a set). */
export function bufferReader(bytes: Buffer): ReadAt {
  return {
    read: async (buffer, offset, length, position) => {
      const start = Math.max(0, Math.min(position, bytes.length));
      return { bytesRead: bytes.copy(buffer, offset, start, Math.min(bytes.length, start + length)) };
    },
    stat: async () => ({ size: bytes.length }),
  };
}

/** Block ids of the signature schemes. */
export const SCHEMES: Readonly<Record<number, string>> = {
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
  /**
   * A v3 signer's proof of rotation: the signing certificates from the oldest to the current one, each
   * with the capabilities it keeps; null when the signer declares none.
   */
  lineage: { certificate: CertificateSummary; capabilities: string[] }[] | null;
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

/** The length-prefixed values in [start, end). */
export function sequence(b: Bytes, start: number, end: number): [number, number][] {
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

/** The length-prefixed value at `at`. */
export function prefixed(b: Bytes, at: number, end: number): [number, number] {
  const len = b.u32(at, 'length prefix');
  if (at + 4 + len > end) throw malformed('APK Signing Block', 'a value runs past its container');
  return [at + 4, at + 4 + len];
}

/** The additional attribute of a v3 signer holding its proof of rotation. */
export const PROOF_OF_ROTATION = 0x3ba06f8c;
/** Capability flags of a lineage node, lowest bit first. */
const CAPABILITIES = ['installed-data', 'shared-uid', 'permission', 'rollback', 'auth'];

/** The lineage in the proof-of-rotation attribute value [start, end): version, then one node per signer. */
function lineageOf(b: Bytes, start: number, end: number): NonNullable<BlockSigner['lineage']> {
  if (b.u32(start, 'lineage version') !== 1) throw malformed('APK Signing Block', 'unknown lineage version');
  return sequence(b, start + 4, end).map(([ns, ne]) => {
    const [sd, sdEnd] = prefixed(b, ns, ne);
    const [c, ce] = prefixed(b, sd, sdEnd);
    const flags = b.u32(sdEnd, 'lineage flags');
    return {
      certificate: certificateSummary(b.buffer.subarray(c, ce)),
      capabilities: CAPABILITIES.filter((_, i) => (flags & (1 << i)) !== 0),
    };
  });
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
    let lineage: BlockSigner['lineage'] = null;
    if (v3 && csEnd + 12 <= sdEnd) {
      const [aa, aaEnd] = prefixed(b, csEnd + 8, sdEnd);
      for (const [as, ae] of sequence(b, aa, aaEnd)) {
        if (ae - as >= 4 && b.u32(as) === PROOF_OF_ROTATION) lineage = lineageOf(b, as + 4, ae);
      }
    }
    return {
      scheme,
      certificates,
      digests,
      min_sdk: v3 ? b.u32(csEnd) : null,
      max_sdk: v3 ? b.u32(csEnd + 4) : null,
      lineage,
    };
  });
}

/** Where the ZIP's end record and central directory are, or null when there is no end record. */
export async function zipEnd(file: ReadAt, size: number): Promise<{ cd: number; eocd: number } | null> {
  const tail = Math.min(size, 65_535 + 22);
  const buffer = Buffer.alloc(tail);
  await file.read(buffer, 0, tail, size - tail);
  for (let i = tail - 22; i >= 0; i--) {
    if (buffer.readUInt32LE(i) === 0x06054b50) return { cd: buffer.readUInt32LE(i + 16), eocd: size - tail + i };
  }
  return null;
}

/** An APK Signing Block as found in a file: its bytes and where it and the ZIP's directory lie. */
export interface LocatedBlock {
  buffer: Buffer;
  /** File offset of the block (its first size field). */
  start: number;
  /** File offset of the central directory, and of the end-of-central-directory record. */
  cd: number;
  eocd: number;
}

/**
 * Finds the APK Signing Block before the central directory of the ZIP in `file`: null when there is
 * none, a problem when its sizes are out of range or disagree.
 */
export async function locateSigningBlock(file: ReadAt, size: number): Promise<LocatedBlock | string | null> {
  const end = await zipEnd(file, size);
  if (end === null || end.cd < 32 || end.cd > end.eocd) return null;
  const { cd, eocd } = end;
  const footer = Buffer.alloc(24);
  await file.read(footer, 0, 24, cd - 24);
  if (footer.toString('latin1', 8) !== 'APK Sig Block 42') return null;
  const blockSize = Number(footer.readBigUInt64LE(0));
  if (blockSize > MAX_SIGNING_BLOCK || blockSize + 8 > cd || blockSize < 24) {
    return `signing block size ${blockSize} is out of range`;
  }
  const buffer = Buffer.alloc(blockSize + 8);
  await file.read(buffer, 0, buffer.length, cd - blockSize - 8);
  if (Number(buffer.readBigUInt64LE(0)) !== blockSize) return 'the two sizes of the signing block disagree';
  return { buffer, start: cd - blockSize - 8, cd, eocd };
}

/** The id-value pairs of a located block (`problems` gets a pair that runs past the block). */
export function blockPairs(buffer: Buffer, problems: string[]): { id: number; start: number; end: number }[] {
  const out: { id: number; start: number; end: number }[] = [];
  let p = 8;
  const end = buffer.length - 24;
  while (p + 12 <= end) {
    const len = Number(buffer.readBigUInt64LE(p));
    if (len < 4 || p + 8 + len > end) {
      problems.push(`pair at ${p} runs past the block`);
      break;
    }
    out.push({ id: buffer.readUInt32LE(p + 8), start: p + 12, end: p + 8 + len });
    p += 8 + len;
  }
  return out;
}

/**
 * Reads the APK Signing Block before the central directory of the ZIP in `file` and decodes the v2,
 * v3 and v3.1 signers: their certificates and the digests they sign (verification is in
 * ../signing/block.ts). A block that cannot be decoded is reported in `problems`, never thrown.
 */
export async function readSigningBlock(file: ReadAt, size: number): Promise<SigningBlock> {
  return decodeSigningBlock(await locateSigningBlock(file, size));
}

/** Decodes a block as {@link locateSigningBlock} found it (see {@link readSigningBlock}). */
export function decodeSigningBlock(located: LocatedBlock | string | null): SigningBlock {
  const none: SigningBlock = { present: false, schemes: [], signers: [], other_blocks: [], problems: [] };
  if (located === null) return none;
  if (typeof located === 'string') return { ...none, present: true, problems: [located] };
  const b = new Bytes(located.buffer, 'APK Signing Block');
  const out: SigningBlock = { present: true, schemes: [], signers: [], other_blocks: [], problems: [] };
  for (const { id, start, end } of blockPairs(located.buffer, out.problems)) {
    const scheme = SCHEMES[id];
    if (scheme !== undefined) {
      out.schemes.push(scheme);
      try {
        out.signers.push(...signersOf(b, scheme, start, end));
      } catch (error) {
        out.problems.push(`${scheme}: ${(error as Error).message}`);
      }
    } else if (id !== 0x42726577) {
      out.other_blocks.push(`0x${id.toString(16)}`);
    }
  }
  return out;
}

/** The hashes of the chunked (not verity) content digests that the signers of `block` declare. */
export function chunkedHashes(block: SigningBlock): string[] {
  const names = new Set(block.signers.flatMap((s) => s.digests.map((d) => d.algorithm)));
  const out: string[] = [];
  for (const [hash, suffix] of [
    ['sha256', 'with SHA2-256'],
    ['sha512', 'with SHA2-512'],
  ] as const) {
    if ([...names].some((n) => n.endsWith(suffix))) out.push(hash);
  }
  return out;
}

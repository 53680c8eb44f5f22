import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Readable } from 'node:stream';
import { throwIfAborted } from '@rea/evidence';

/** What to compute while streaming one entry. */
export interface DigestOptions {
  /** SHA-256 of the bytes (default true); false leaves `sha256` null (CRC-32 and size still checked). */
  sha256?: boolean;
  crc32?: boolean;
  /** Hash fixed-size blocks as well (ASAR integrity). */
  blockSize?: number;
  /** Keep the bytes in memory when the stream stays within this many bytes (nested containers). */
  collectUpTo?: number;
  /** Decides from the first bytes whether to keep collecting (so only containers are held). */
  collectWhen?: (head: Buffer) => boolean;
  /** Write every chunk here as well (extraction). */
  onChunk?: (chunk: Buffer) => Promise<void> | void;
  signal?: AbortSignal | undefined;
}

/** What streaming one entry observed. */
export interface Digest {
  /** Null only when the options asked for no SHA-256. */
  sha256: string | null;
  size: number;
  crc32: number | null;
  blocks: string[] | null;
  collected: Buffer | null;
  head: Buffer;
}

/** A digest with its SHA-256 (what every call computes unless asked not to). */
export type HashedDigest = Digest & { sha256: string };

/**
 * Streams `stream` once, computing SHA-256 (and optionally CRC-32, block hashes, a retained copy).
 * Checks the signal between chunks; a stream error propagates as thrown (the caller maps it).
 */
export function digestStream(stream: Readable, options?: DigestOptions & { sha256?: true }): Promise<HashedDigest>;
export function digestStream(stream: Readable, options: DigestOptions): Promise<Digest>;
export async function digestStream(stream: Readable, options: DigestOptions = {}): Promise<Digest> {
  const sha = options.sha256 === false ? null : createHash('sha256');
  let crc = 0;
  let size = 0;
  const blocks: string[] = [];
  let block: Hash | null = options.blockSize ? createHash('sha256') : null;
  let blockFill = 0;
  let collected: Buffer[] | null = options.collectUpTo !== undefined ? [] : null;
  let head = Buffer.alloc(0);
  try {
    for await (const raw of stream) {
      throwIfAborted(options.signal, 'hashing');
      const chunk = raw as Buffer;
      sha?.update(chunk);
      if (options.crc32) crc = crc32(chunk, crc);
      if (head.length < 16) head = Buffer.concat([head, chunk.subarray(0, 16 - head.length)]);
      if (size === 0 && collected !== null && options.collectWhen && !options.collectWhen(head)) collected = null;
      size += chunk.length;
      if (block !== null && options.blockSize) {
        let at = 0;
        while (at < chunk.length) {
          const take = Math.min(options.blockSize - blockFill, chunk.length - at);
          block.update(chunk.subarray(at, at + take));
          blockFill += take;
          at += take;
          if (blockFill === options.blockSize) {
            blocks.push(block.digest('hex'));
            block = createHash('sha256');
            blockFill = 0;
          }
        }
      }
      if (collected !== null) {
        if (size > (options.collectUpTo ?? 0)) collected = null;
        else collected.push(chunk);
      }
      if (options.onChunk) await options.onChunk(chunk);
    }
  } finally {
    stream.destroy();
  }
  // Like the ASAR writer, the final (possibly empty) partial block is always hashed.
  if (block !== null) blocks.push(block.digest('hex'));
  return {
    sha256: sha === null ? null : sha.digest('hex'),
    size,
    crc32: options.crc32 ? crc >>> 0 : null,
    blocks: options.blockSize ? blocks : null,
    collected: collected === null ? null : Buffer.concat(collected),
    head,
  };
}

/** Formats a CRC-32 the way ZIP tools print it: 8 lowercase hex digits. */
export function crcHex(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/** The digest of bytes already in memory, computed like {@link digestStream}. */
export function digestBuffer(bytes: Buffer, options?: DigestOptions & { sha256?: true }): Promise<HashedDigest>;
export function digestBuffer(bytes: Buffer, options: DigestOptions): Promise<Digest>;
export async function digestBuffer(bytes: Buffer, options: DigestOptions = {}): Promise<Digest> {
  throwIfAborted(options.signal, 'hashing');
  const blocks: string[] | null = options.blockSize ? [] : null;
  if (blocks !== null && options.blockSize) {
    let at = 0;
    while (at + options.blockSize <= bytes.length) {
      blocks.push(
        createHash('sha256')
          .update(bytes.subarray(at, at + options.blockSize))
          .digest('hex'),
      );
      at += options.blockSize;
    }
    blocks.push(createHash('sha256').update(bytes.subarray(at)).digest('hex'));
  }
  const head = bytes.subarray(0, 16);
  const keep =
    options.collectUpTo !== undefined &&
    bytes.length <= options.collectUpTo &&
    (options.collectWhen === undefined || options.collectWhen(head));
  if (options.onChunk && bytes.length > 0) await options.onChunk(bytes);
  return {
    sha256: options.sha256 === false ? null : createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
    crc32: options.crc32 ? crc32(bytes) >>> 0 : null,
    blocks,
    collected: keep ? bytes : null,
    head: Buffer.from(head),
  };
}

// Writes ASAR bytes from a header object and a data area, so tests can make any header field lie.
import { createHash } from 'node:crypto';

/** The ASAR bytes for `header` (serialised as given) followed by `data`. */
export function buildAsar(header: unknown, data: Buffer, rawJson?: string): Buffer {
  const json = Buffer.from(rawJson ?? JSON.stringify(header), 'utf8');
  const payload = 4 + json.length + ((4 - (json.length % 4)) % 4);
  const headerPickle = Buffer.alloc(4 + payload);
  headerPickle.writeUInt32LE(payload, 0);
  headerPickle.writeInt32LE(json.length, 4);
  json.copy(headerPickle, 8);
  const sizePickle = Buffer.alloc(8);
  sizePickle.writeUInt32LE(4, 0);
  sizePickle.writeUInt32LE(headerPickle.length, 4);
  return Buffer.concat([sizePickle, headerPickle, data]);
}

/** The integrity record @electron/asar writes for `bytes` (4 MiB blocks, final partial block hashed). */
export function asarIntegrity(bytes: Buffer, blockSize = 4 * 1024 * 1024) {
  const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
  const blocks: string[] = [];
  let at = 0;
  while (at + blockSize <= bytes.length) {
    blocks.push(sha(bytes.subarray(at, at + blockSize)));
    at += blockSize;
  }
  blocks.push(sha(bytes.subarray(at)));
  return { algorithm: 'SHA256', hash: sha(bytes), blockSize, blocks };
}

/** A simple archive: files at the root with integrity, laid out in order. */
export function simpleAsar(files: Record<string, Buffer>): Buffer {
  const entries: Record<string, unknown> = {};
  let offset = 0;
  const chunks: Buffer[] = [];
  for (const [name, bytes] of Object.entries(files)) {
    entries[name] = { size: bytes.length, offset: String(offset), integrity: asarIntegrity(bytes) };
    chunks.push(bytes);
    offset += bytes.length;
  }
  return buildAsar({ files: entries }, Buffer.concat(chunks));
}

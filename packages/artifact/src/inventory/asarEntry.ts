import { createReadStream } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { AsarNode } from '../engine/asar.js';
import { digestBuffer, digestStream } from '../hashing.js';
import type { Digest, DigestOptions } from '../hashing.js';
import type { ObservedContradiction } from '../integrity.js';
import type { ByteSource } from '../source.js';
import { containerFromHead } from '../detect.js';

const DEFAULT_BLOCK = 4 * 1024 * 1024;
const SMALL_BYTES = 512 * 1024;

/**
 * Reads the `.asar.unpacked` companion of a nested archive from its enclosing container: the digest of
 * the companion entry named by `segments` (block hashes of `blockSize`), or null when it is absent or
 * unreadable there.
 */
export type CompanionReader = (segments: readonly string[], blockSize: number) => Promise<Digest | null>;

/** The outcome of reading one ASAR file entry. */
export type AsarRead =
  | { status: 'read'; digest: Digest; contradiction: ObservedContradiction | null }
  | { status: 'missing'; reason: string };

/** True when an ASAR header segment cannot name a file under a directory. */
export function badSegment(segment: string): boolean {
  return segment === '' || segment === '.' || segment === '..' || /[/\\\0]/.test(segment);
}

async function companionStream(
  companion: string,
  node: AsarNode,
): Promise<{ stream: NodeJS.ReadableStream } | { reason: string }> {
  const file = join(companion, ...node.segments);
  try {
    const info = await lstat(file);
    if (!info.isFile()) return { reason: 'the companion entry is not a regular file' };
    const [root, real] = await Promise.all([realpath(companion), realpath(file)]);
    if (!real.startsWith(root + sep)) return { reason: 'the companion entry resolves outside the companion directory' };
    return { stream: createReadStream(real, { highWaterMark: 1 << 20 }) };
  } catch {
    return { reason: 'the .asar.unpacked companion file is absent' };
  }
}

/**
 * Reads one ASAR file entry (packed bytes from the archive, or the `.asar.unpacked` companion file) and
 * checks it against the header's declared size, whole-file SHA-256 and block hashes.
 */
export async function readAsarEntry(
  source: ByteSource,
  companion: string | CompanionReader | null,
  node: AsarNode,
  path: string,
  options: Pick<DigestOptions, 'signal' | 'onChunk'> & { collectUpTo?: number },
): Promise<AsarRead> {
  const digestOptions: DigestOptions = {
    blockSize: node.integrity?.blockSize ?? DEFAULT_BLOCK,
    signal: options.signal,
    ...(options.onChunk ? { onChunk: options.onChunk } : {}),
    ...(options.collectUpTo !== undefined
      ? { collectUpTo: options.collectUpTo, collectWhen: (head: Buffer) => containerFromHead(head) !== null }
      : {}),
  };
  if (!node.unpacked && node.size <= SMALL_BYTES) {
    // Small packed entries: one (usually cached) read instead of a stream.
    const bytes = await source.read(node.offset!, node.size);
    return judged(node, path, await digestBuffer(bytes, digestOptions));
  }
  let stream: NodeJS.ReadableStream;
  if (node.unpacked) {
    if (companion === null)
      return { status: 'missing', reason: 'no .asar.unpacked companion is available for a nested archive' };
    if (typeof companion === 'function') {
      const digest = await companion(node.segments, digestOptions.blockSize!);
      if (digest === null)
        return { status: 'missing', reason: 'the .asar.unpacked companion entry is absent from the enclosing archive' };
      return judged(node, path, digest);
    }
    const opened = await companionStream(companion, node);
    if ('reason' in opened) return { status: 'missing', reason: opened.reason };
    stream = opened.stream;
  } else {
    stream = source.stream(node.offset!, node.offset! + node.size);
  }
  return judged(node, path, await digestStream(stream as Readable, digestOptions));
}

/** Compares what was read with the header's declared size, whole-file hash and block hashes. */
function judged(node: AsarNode, path: string, digest: Digest): AsarRead {
  const base = { path, provenance: 'asar-header' as const, unpacked: node.unpacked, observedSha256: digest.sha256 };
  let contradiction: ObservedContradiction | null = null;
  if (digest.size !== node.size) {
    contradiction = { ...base, algorithm: 'size', declared: `${node.size} bytes`, observed: `${digest.size} bytes` };
  } else if (node.integrity && digest.sha256 !== node.integrity.hash) {
    contradiction = {
      ...base,
      algorithm: 'sha256',
      declared: node.integrity.hash,
      observed: digest.sha256 ?? 'not computed',
    };
  } else if (node.integrity && (digest.blocks ?? []).join(',') !== node.integrity.blocks.join(',')) {
    const at = node.integrity.blocks.findIndex((b, i) => digest.blocks?.[i] !== b);
    contradiction = {
      ...base,
      algorithm: 'sha256-blocks',
      declared: `block ${at}: ${node.integrity.blocks[at] ?? '(none)'}`,
      observed: `block ${at}: ${digest.blocks?.[at] ?? '(none)'}`,
    };
  }
  return { status: 'read', digest, contradiction };
}

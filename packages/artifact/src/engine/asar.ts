// The ASAR header parser. REA reads the header itself rather than through @electron/asar so that a
// hostile header (lying sizes, offsets past the end, traversal keys, absurd nesting) is judged entry by
// entry with typed errors and bounded work.
import type { ByteSource } from '../source.js';
import { malformed } from '../errors.js';
import { isReaError } from '@rea/evidence';
import { Pacer, runCooperatively } from '../layout/cooperative.js';
import { parseJsonWork } from './jsonSlices.js';

/** Declared integrity of an ASAR file entry. */
export interface AsarIntegrity {
  hash: string;
  blockSize: number;
  blocks: string[];
}

/** One entry of an ASAR header, flattened. */
export interface AsarNode {
  /** Logical path, segments joined with "/" exactly as the header names them. */
  path: string;
  /** Segments as the header names them (judged by the caller). */
  segments: string[];
  kind: 'file' | 'directory' | 'symlink';
  size: number;
  /** Absolute offset of the data within the archive (packed files only). */
  offset: number | null;
  unpacked: boolean;
  executable: boolean;
  link: string | null;
  integrity: AsarIntegrity | null;
}

/** A parsed header: the entries (up to the budget) and whether the budget cut the listing. */
export interface AsarHeader {
  headerSize: number;
  dataOffset: number;
  entries: AsarNode[];
  truncated: boolean;
}

/** The ASAR magic: a 4-byte pickle holding the header size, then the header pickle. */
export function looksLikeAsar(head: Buffer): boolean {
  if (head.length < 16) return false;
  const headerPickle = head.readUInt32LE(4);
  const payload = head.readUInt32LE(8);
  const length = head.readInt32LE(12);
  return head.readUInt32LE(0) === 4 && payload + 4 <= headerPickle && length >= 0 && length + 4 <= payload;
}

const MAX_HEADER_BYTES = 256 * 1024 * 1024;
const MAX_NESTING = 512;
const HEX64 = /^[0-9a-f]{64}$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sizeOf(node: Json, path: string): number {
  const size = node['size'];
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw malformed('asar', `entry ${JSON.stringify(path)} declares an invalid size ${JSON.stringify(size)}`, { path });
  }
  return size;
}

function integrityOf(node: Json, path: string): AsarIntegrity | null {
  const integrity = node['integrity'];
  if (integrity === undefined) return null;
  const bad = (): never => {
    throw malformed('asar', `entry ${JSON.stringify(path)} has malformed integrity`, { path });
  };
  if (!isObject(integrity) || String(integrity['algorithm']).toUpperCase() !== 'SHA256') bad();
  const { hash, blockSize, blocks } = integrity as Json;
  if (typeof hash !== 'string' || !HEX64.test(hash.toLowerCase())) bad();
  if (typeof blockSize !== 'number' || !Number.isSafeInteger(blockSize) || blockSize <= 0) bad();
  if (!Array.isArray(blocks) || blocks.some((b) => typeof b !== 'string' || !HEX64.test(b.toLowerCase()))) bad();
  return {
    hash: (hash as string).toLowerCase(),
    blockSize: blockSize as number,
    blocks: (blocks as string[]).map((b) => b.toLowerCase()),
  };
}

function fileNode(node: Json, segments: string[], dataOffset: number, sourceSize: number): AsarNode {
  const path = segments.join('/');
  const size = sizeOf(node, path);
  const unpacked = node['unpacked'] === true;
  let offset: number | null = null;
  if (!unpacked) {
    const raw = node['offset'];
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !/^\d{1,16}$/.test(text)) {
      throw malformed('asar', `entry ${JSON.stringify(path)} declares an invalid offset ${JSON.stringify(raw)}`, {
        path,
      });
    }
    offset = dataOffset + Number(text);
    if (!Number.isSafeInteger(offset) || offset + size > sourceSize) {
      throw malformed('asar', `entry ${JSON.stringify(path)} points past the end of the archive`, {
        path,
        offset: Number(text),
        size,
        archive_size: sourceSize,
      });
    }
  }
  return {
    path,
    segments,
    kind: 'file',
    size,
    offset,
    unpacked,
    executable: node['executable'] === true,
    link: null,
    integrity: integrityOf(node, path),
  };
}

/**
 * Reads and judges an ASAR header. Lies (sizes, offsets past the end, malformed integrity, bad JSON,
 * pickle lengths that disagree) are `unsupported_target` (malformed) naming the entry. Listing stops
 * at `maxEntries` with `truncated: true`. The walk gives the event loop a turn every few milliseconds
 * and throws `cancelled` when `signal` is aborted.
 */
export async function readAsarHeader(
  source: ByteSource,
  maxEntries: number,
  signal?: AbortSignal,
): Promise<AsarHeader> {
  if (source.size < 16) throw malformed('asar', 'shorter than an ASAR header');
  const head = await source.read(0, 16);
  if (!looksLikeAsar(head)) throw malformed('asar', 'the header pickle sizes are inconsistent');
  const headerSize = head.readUInt32LE(4);
  if (headerSize > MAX_HEADER_BYTES || 8 + headerSize > source.size) {
    throw malformed('asar', `the header declares ${headerSize} bytes, beyond the archive or the header limit`);
  }
  const length = head.readInt32LE(12);
  const json = await source.read(16, length);
  let root: unknown;
  try {
    root = await runCooperatively(parseJsonWork(json), signal);
  } catch (error) {
    if (isReaError(error)) throw error;
    throw malformed('asar', 'the header is not valid JSON');
  }
  const dataOffset = 8 + headerSize;
  if (!isObject(root) || !isObject(root['files'])) throw malformed('asar', 'the header has no root "files" object');
  const entries: AsarNode[] = [];
  const pacer = new Pacer(signal);
  const stack: Array<{ files: Json; segments: string[] }> = [{ files: root['files'], segments: [] }];
  while (stack.length > 0) {
    const { files, segments: parent } = stack.pop()!;
    if (parent.length > MAX_NESTING) throw malformed('asar', `directories nest deeper than ${MAX_NESTING} levels`);
    const names = Object.keys(files).sort();
    const children: Array<{ files: Json; segments: string[] }> = [];
    for (const name of names) {
      await pacer.turn('header');
      if (entries.length >= maxEntries) return { headerSize, dataOffset, entries, truncated: true };
      const node = files[name];
      const segments = [...parent, name];
      const path = segments.join('/');
      if (!isObject(node)) throw malformed('asar', `entry ${JSON.stringify(path)} is not an object`, { path });
      if (isObject(node['files'])) {
        entries.push({
          path,
          segments,
          kind: 'directory',
          size: 0,
          offset: null,
          unpacked: node['unpacked'] === true,
          executable: false,
          link: null,
          integrity: null,
        });
        children.push({ files: node['files'], segments });
      } else if (typeof node['link'] === 'string') {
        entries.push({
          path,
          segments,
          kind: 'symlink',
          size: 0,
          offset: null,
          unpacked: node['unpacked'] === true,
          executable: false,
          link: node['link'],
          integrity: null,
        });
      } else {
        entries.push(fileNode(node, segments, dataOffset, source.size));
      }
    }
    // Depth-first in name order: push children in reverse so the first name is visited first.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
  }
  return { headerSize, dataOffset, entries, truncated: false };
}

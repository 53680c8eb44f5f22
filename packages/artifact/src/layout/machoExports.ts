import type { ByteReader } from './reader.js';
import type { LayoutExport } from './types.js';

const EXPORT_SYMBOL_FLAGS_REEXPORT = 0x08;
const EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER = 0x10;
const EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE = 0x02;
/** Bounds the walk of a hostile trie (each node is visited once; names are bounded in length). */
const MAX_NODES = 1 << 20;
const MAX_NAME = 4096;

/**
 * The exports trie (LC_DYLD_INFO export_off/size or LC_DYLD_EXPORTS_TRIE): every exported name with
 * its address (image base + offset; absolute symbols as recorded). Re-exports, which have no address
 * in this image, are skipped. Returns null when the trie is malformed, so that callers fall back to
 * the symbol table rather than fail.
 */
export function readExportsTrie(r: ByteReader, offset: number, size: number, imageBase: number): LayoutExport[] | null {
  if (size === 0 || !r.contains(offset, size)) return null;
  const region = r.region(offset, size, 'exports trie');
  const bytes = region.bytes;
  const start = offset - region.base;
  const end = start + size;
  const uleb = (cursor: { at: number }): number | null => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (cursor.at >= end || scale > 2 ** 49) return null;
      const byte = bytes[cursor.at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 128;
      if ((byte & 0x80) === 0) return value;
    }
  };
  const out: LayoutExport[] = [];
  const visited = new Set<number>();
  const stack: Array<{ node: number; prefix: string }> = [{ node: 0, prefix: '' }];
  while (stack.length > 0) {
    const { node, prefix } = stack.pop()!;
    if (visited.has(node) || visited.size >= MAX_NODES || prefix.length > MAX_NAME) return null;
    visited.add(node);
    const cursor = { at: start + node };
    const terminal = uleb(cursor);
    if (terminal === null) return null;
    const children = cursor.at + terminal;
    if (terminal > 0) {
      const flags = uleb(cursor);
      if (flags === null) return null;
      if ((flags & EXPORT_SYMBOL_FLAGS_REEXPORT) === 0) {
        const value = uleb(cursor);
        if (value === null) return null;
        if ((flags & EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER) !== 0 && uleb(cursor) === null) return null;
        const absolute = (flags & 0x03) === EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE;
        const address = absolute ? value : imageBase + value;
        if (!Number.isSafeInteger(address)) return null;
        out.push({ name: prefix, address });
      }
    }
    cursor.at = children;
    if (cursor.at >= end) return null;
    const count = bytes[cursor.at++]!;
    const pending: Array<{ node: number; prefix: string }> = [];
    for (let i = 0; i < count; i += 1) {
      const stop = bytes.indexOf(0, cursor.at);
      if (stop < 0 || stop >= end) return null;
      const edge = region.buffer.toString('utf8', cursor.at, stop);
      cursor.at = stop + 1;
      const child = uleb(cursor);
      if (child === null || child >= size) return null;
      pending.push({ node: child, prefix: prefix + edge });
    }
    // Depth first, children in trie order.
    for (let i = pending.length - 1; i >= 0; i -= 1) stack.push(pending[i]!);
  }
  return out;
}

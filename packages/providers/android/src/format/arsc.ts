import { Bytes, malformed } from './bytes.js';
import type { ResValue } from './resValue.js';
import { VALUE, valueText } from './resValue.js';
import { STRING_POOL_TYPE, StringPool } from './stringPool.js';

const TABLE_TYPE = 0x0002;
const PACKAGE_TYPE = 0x0200;
const TYPE_TYPE = 0x0201;
const TYPE_SPEC_TYPE = 0x0202;
const NO_ENTRY = 0xffffffff;
const FLAG_COMPLEX = 0x1;
const FLAG_COMPACT = 0x8;
const TYPE_SPARSE = 0x1;
const TYPE_OFFSET16 = 0x2;

/** Type chunks indexed at most; past it the table is cut (`truncated`). */
export const MAX_TYPE_CHUNKS = 100_000;

interface TypeChunk {
  typeId: number;
  locale: string;
  at: number;
  headerSize: number;
  entryCount: number;
  entriesStart: number;
  flags: number;
}

interface Package {
  id: number;
  name: string;
  typeNames: StringPool;
  keys: StringPool;
  chunks: TypeChunk[];
}

/** One value of a resource in one configuration. */
export interface ResourceValue {
  /** BCP 47-ish locale of the configuration (`""` for the default). */
  locale: string;
  /** The value as text (string values resolved through the table's string pool). */
  text: string;
  value: ResValue | null;
}

/** The packages, types and locales of a resource table. */
export interface ResourceSummary {
  packages: { id: number; name: string; types: { name: string; entries: number; configurations: number }[] }[];
  locales: string[];
  strings: number;
}

function packedLetters(a: number, b: number): string {
  const first = b & 0x1f;
  const second = ((b & 0xe0) >> 5) | ((a & 0x03) << 3);
  const third = (a & 0x7c) >> 2;
  return String.fromCharCode(first + 97, second + 97, third + 97);
}

function localeAt(bytes: Bytes, config: number): string {
  const size = bytes.u32(config, 'configuration size');
  if (size < 12) return '';
  // Two letters, or three packed into two bytes when the first has its top bit set.
  const code = (a: number, b: number) =>
    a === 0 ? '' : (a & 0x80) !== 0 ? packedLetters(a, b) : String.fromCharCode(a, b);
  const lang = code(bytes.u8(config + 8), bytes.u8(config + 9));
  const region = code(bytes.u8(config + 10), bytes.u8(config + 11));
  return region === '' ? lang : `${lang}-${region}`;
}

/**
 * A compiled resource table (resources.arsc): its global string pool and, per package, the type and
 * key pools and an index of its type chunks, from which {@link ResourceTable.resolve} reads the values
 * of a resource id in every configuration. Structural faults are `malformed`; values whose index is out
 * of range are skipped.
 */
/**
 * The text of `id` in `table`'s default configuration (else its first), following references up to
 * `depth` times; null when the table does not define it. Both table forms (binary and protobuf) use it.
 */
export function resolvedText(
  table: { resolve(id: number): readonly ResourceValue[] },
  id: number,
  depth: number,
): string | null {
  const values = table.resolve(id);
  const chosen = values.find((v) => v.locale === '') ?? values[0];
  if (chosen === undefined) return null;
  if (chosen.value?.type === VALUE.REFERENCE && depth > 0 && chosen.value.data !== id) {
    return resolvedText(table, chosen.value.data, depth - 1) ?? chosen.text;
  }
  return chosen.text;
}

/** Resource ids whose values a table keeps once resolved. */
const MAX_RESOLVED = 4096;

export class ResourceTable {
  readonly strings: StringPool;
  readonly packages: Package[] = [];
  truncated = false;
  private readonly bytes: Bytes;
  private readonly resolved = new Map<number, readonly ResourceValue[]>();

  /** `source`: the table's bytes, or a view of them read on demand (see ./fileBytes.ts). */
  constructor(source: Buffer | Bytes) {
    const bytes = Buffer.isBuffer(source) ? new Bytes(source, 'resources.arsc') : source;
    this.bytes = bytes;
    if (bytes.u16(0, 'table header') !== TABLE_TYPE) throw malformed('resources.arsc', 'not a resource table');
    const end = Math.min(bytes.u32(4, 'table size'), bytes.length);
    let strings: StringPool | null = null;
    let at = bytes.u16(2, 'table header size');
    let chunks = 0;
    while (at + 8 <= end) {
      const type = bytes.u16(at);
      const size = bytes.u32(at + 4, 'chunk size');
      if (size < 8) throw malformed('resources.arsc', 'a chunk has an impossible size', { offset: at });
      bytes.need(at, size, 'chunk');
      if (type === STRING_POOL_TYPE && strings === null) strings = new StringPool(bytes, at);
      else if (type === PACKAGE_TYPE) chunks += this.readPackage(at, size, chunks);
      at += size;
    }
    if (strings === null) throw malformed('resources.arsc', 'the table has no string pool');
    this.strings = strings;
  }

  private readPackage(at: number, size: number, before: number): number {
    const b = this.bytes;
    const headerSize = b.u16(at + 2);
    const id = b.u32(at + 8, 'package id');
    const name = b
      .slice(at + 12, 256, 'package name')
      .toString('utf16le')
      .replace(/\0.*$/s, '');
    const typeNames = new StringPool(b, at + b.u32(at + 268, 'type strings offset'));
    const keys = new StringPool(b, at + b.u32(at + 276, 'key strings offset'));
    const pkg: Package = { id, name, typeNames, keys, chunks: [] };
    this.packages.push(pkg);
    let p = at + headerSize;
    const end = at + size;
    let count = 0;
    while (p + 8 <= end) {
      const type = b.u16(p);
      const chunkHeader = b.u16(p + 2);
      const chunkSize = b.u32(p + 4);
      if (chunkSize < 8 || p + chunkSize > end)
        throw malformed('resources.arsc', 'a package chunk has an impossible size', { offset: p });
      if (type === TYPE_TYPE) {
        if (before + count >= MAX_TYPE_CHUNKS) {
          this.truncated = true;
          break;
        }
        pkg.chunks.push({
          typeId: b.u8(p + 8),
          flags: b.u8(p + 9),
          entryCount: b.u32(p + 12),
          entriesStart: b.u32(p + 16),
          locale: localeAt(b, p + 20),
          at: p,
          headerSize: chunkHeader,
        });
        count++;
      } else if (type !== TYPE_SPEC_TYPE && type !== STRING_POOL_TYPE) {
        // Library and overlay chunks are skipped by their size.
      }
      p += chunkSize;
    }
    return count;
  }

  private entryOffset(chunk: TypeChunk, index: number): number | null {
    const b = this.bytes;
    const table = chunk.at + chunk.headerSize;
    if ((chunk.flags & TYPE_SPARSE) !== 0) {
      // Sorted (index u16, offset/4 u16) pairs.
      let lo = 0;
      let hi = chunk.entryCount - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const key = b.u16(table + mid * 4);
        if (key === index) return b.u16(table + mid * 4 + 2) * 4;
        if (key < index) lo = mid + 1;
        else hi = mid - 1;
      }
      return null;
    }
    if (index >= chunk.entryCount) return null;
    if ((chunk.flags & TYPE_OFFSET16) !== 0) {
      const v = b.u16(table + index * 2);
      return v === 0xffff ? null : v * 4;
    }
    const v = b.u32(table + index * 4);
    return v === NO_ENTRY ? null : v;
  }

  /**
   * The values of resource `id` in every configuration that defines it (faulty entries skipped). The
   * answer is kept for the next ask of the same id (a label is read as text and per locale).
   */
  resolve(id: number): readonly ResourceValue[] {
    let values = this.resolved.get(id);
    if (values === undefined) {
      values = this.lookUp(id);
      if (this.resolved.size < MAX_RESOLVED) this.resolved.set(id, values);
    }
    return values;
  }

  private lookUp(id: number): ResourceValue[] {
    const pkgId = id >>> 24;
    const typeId = (id >>> 16) & 0xff;
    const index = id & 0xffff;
    const out: ResourceValue[] = [];
    for (const pkg of this.packages) {
      if (pkg.id !== pkgId) continue;
      for (const chunk of pkg.chunks) {
        if (chunk.typeId !== typeId) continue;
        try {
          const offset = this.entryOffset(chunk, index);
          if (offset === null) continue;
          const entry = chunk.at + chunk.entriesStart + offset;
          const flags = this.bytes.u16(entry + 2);
          let value: ResValue | null;
          if ((flags & FLAG_COMPACT) !== 0) value = { type: flags >>> 8, data: this.bytes.u32(entry + 4) };
          else if ((flags & FLAG_COMPLEX) !== 0) value = null;
          else {
            const v = entry + this.bytes.u16(entry);
            value = { type: this.bytes.u8(v + 3), data: this.bytes.u32(v + 4) };
          }
          const text =
            value === null
              ? '(complex)'
              : value.type === VALUE.STRING
                ? (this.strings.get(value.data) ?? '')
                : valueText(value);
          out.push({ locale: chunk.locale, text, value });
        } catch {
          // An entry whose bytes are out of range is skipped.
        }
      }
    }
    return out;
  }

  /**
   * The text of `id` in its default configuration (else its first), following references up to `depth`
   * times; null when the table does not define it.
   */
  text(id: number, depth = 8): string | null {
    return resolvedText(this, id, depth);
  }

  /** Packages, types with their entry and configuration counts, locales. */
  summary(): ResourceSummary {
    const locales = new Set<string>();
    const packages = this.packages.map((pkg) => {
      const types = new Map<number, { entries: number; configurations: number }>();
      for (const chunk of pkg.chunks) {
        locales.add(chunk.locale);
        const t = types.get(chunk.typeId) ?? { entries: 0, configurations: 0 };
        t.entries = Math.max(t.entries, chunk.entryCount);
        t.configurations++;
        types.set(chunk.typeId, t);
      }
      return {
        id: pkg.id,
        name: pkg.name,
        types: [...types]
          .sort((a, b) => a[0] - b[0])
          .map(([typeId, t]) => ({ name: pkg.typeNames.get(typeId - 1) ?? `type${typeId}`, ...t })),
      };
    });
    locales.delete('');
    return { packages, locales: [...locales].sort(), strings: this.strings.count };
  }
}

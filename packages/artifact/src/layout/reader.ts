import { Buffer } from 'node:buffer';
import { ReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import { memorySource } from './source.js';
import type { ByteSource, Region } from './source.js';
import type { BinaryFormat } from './types.js';

/** Why a header was refused; carried in `details.reason` of `unsupported_target`. */
export type MalformedReason = 'truncated' | 'malformed' | 'value-out-of-range' | 'unknown-format';

/** A typed refusal for a file whose headers cannot be trusted. */
export function malformed(
  format: BinaryFormat | null,
  reason: MalformedReason,
  message: string,
  extra: JsonObject = {},
): ReaError {
  return new ReaError('unsupported_target', message, {
    details: { format, reason, ...extra },
    remediation:
      reason === 'unknown-format'
        ? 'Pass an ELF, PE or Mach-O file.'
        : 'The file is damaged or deliberately inconsistent; obtain an intact copy.',
  });
}

/**
 * Bounds-checked little/big-endian reads over a {@link ByteSource}. Every read past the end throws
 * `unsupported_target` (`details.reason: "truncated"`); every 64-bit value beyond
 * Number.MAX_SAFE_INTEGER throws `value-out-of-range`.
 */
export class ByteReader {
  readonly source: ByteSource;
  readonly little: boolean;
  readonly format: BinaryFormat;
  readonly length: number;
  /** The whole file when it is in memory (the fast path), else null. */
  private readonly whole: Region | null;

  constructor(source: ByteSource | Uint8Array, little: boolean, format: BinaryFormat) {
    const resolved = source instanceof Uint8Array ? memorySource(source) : source;
    this.source = resolved;
    this.whole = 'whole' in resolved ? (resolved as { whole: Region }).whole : null;
    this.little = little;
    this.format = format;
    this.length = resolved.length;
  }

  /** Throws `truncated` unless `[offset, offset + size)` lies inside the file. */
  check(offset: number, size: number, what: string): void {
    if (!(offset >= 0 && size >= 0 && offset + size <= this.length && Number.isSafeInteger(offset + size))) {
      throw malformed(
        this.format,
        'truncated',
        `The ${what} (offset ${offset}, ${size} bytes) lies outside the ${this.length}-byte file.`,
      );
    }
  }

  /** True when `[offset, offset + size)` lies inside the file. */
  contains(offset: number, size: number): boolean {
    return offset >= 0 && size >= 0 && offset + size <= this.length;
  }

  /** The bytes `[offset, offset + size)` after a bounds check (index with `offset - region.base`). */
  region(offset: number, size: number, what: string): Region {
    this.check(offset, size, what);
    return this.whole ?? this.source.region(offset, size);
  }

  private at(offset: number, size: number): Region {
    if (offset < 0 || offset + size > this.length) this.check(offset, size, 'field');
    return this.whole ?? this.source.region(offset, size);
  }

  u8(offset: number): number {
    const r = this.at(offset, 1);
    return r.bytes[offset - r.base]!;
  }

  u16(offset: number): number {
    const r = this.at(offset, 2);
    return r.view.getUint16(offset - r.base, this.little);
  }

  u32(offset: number): number {
    const r = this.at(offset, 4);
    return r.view.getUint32(offset - r.base, this.little);
  }

  i32(offset: number): number {
    const r = this.at(offset, 4);
    return r.view.getInt32(offset - r.base, this.little);
  }

  /** An unsigned 64-bit value as an exact number; refuses values above Number.MAX_SAFE_INTEGER. */
  u64(offset: number, what = 'value'): number {
    const r = this.at(offset, 8);
    const o = offset - r.base;
    const lo = r.view.getUint32(o + (this.little ? 0 : 4), this.little);
    const hi = r.view.getUint32(o + (this.little ? 4 : 0), this.little);
    if (hi > 0x1fffff) {
      throw malformed(
        this.format,
        'value-out-of-range',
        `A 64-bit ${what} at offset ${offset} exceeds the largest exactly representable number.`,
      );
    }
    return hi * 0x1_0000_0000 + lo;
  }

  /** A word of the file's class: u32 for 32-bit, u64 for 64-bit. */
  word(offset: number, is64: boolean, what?: string): number {
    return is64 ? this.u64(offset, what) : this.u32(offset);
  }

  /** The NUL-terminated string at `offset`, reading at most up to `end` (default: end of file). */
  cstring(offset: number, end = this.length): string {
    const limit = Math.min(end, this.length);
    if (offset < 0 || offset >= limit) return '';
    if (this.whole) return cstringIn(this.whole, offset, limit);
    // On demand: search window by window so that a long string never loads the rest of the file.
    const parts: Buffer[] = [];
    for (let from = offset; from < limit;) {
      const size = Math.min(limit - from, 4096 - (from % 4096));
      const r = this.source.region(from, size);
      const rel = from - r.base;
      const stop = r.buffer.indexOf(0, rel);
      if (stop >= 0 && stop < rel + size) {
        parts.push(r.buffer.subarray(rel, stop));
        break;
      }
      parts.push(r.buffer.subarray(rel, rel + size));
      from += size;
    }
    return Buffer.concat(parts).toString('utf8');
  }

  /** A fixed-width, NUL-padded name (Mach-O segment and section names, PE short section names). */
  fixedString(offset: number, width: number): string {
    const r = this.region(offset, width, 'name');
    const bytes = r.bytes;
    const start = offset - r.base;
    let stop = start;
    while (stop < start + width && bytes[stop] !== 0) stop += 1;
    return r.buffer.toString('latin1', start, stop);
  }
}

/** The NUL-terminated string at absolute `offset` of a region, stopping at absolute `limit`. */
export function cstringIn(region: Region, offset: number, limit: number): string {
  const start = offset - region.base;
  const bytes = region.bytes;
  const end = Math.min(limit - region.base, bytes.length);
  if (start < 0 || start >= end) return '';
  // A plain loop: for the short names of symbol tables (tens of thousands per library) it costs far
  // less than a Buffer#indexOf call each, and it notes whether the name is ASCII on the way.
  let stop = start;
  let high = 0;
  while (stop < end) {
    const byte = bytes[stop]!;
    if (byte === 0) break;
    high |= byte;
    stop += 1;
  }
  return region.buffer.toString(high < 0x80 ? 'latin1' : 'utf8', start, stop);
}

/** Throws `value-out-of-range` unless `value` is a safe non-negative integer. */
export function safeSum(format: BinaryFormat, a: number, b: number, what: string): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) {
    throw malformed(format, 'value-out-of-range', `The ${what} exceeds the largest exactly representable number.`);
  }
  return sum;
}

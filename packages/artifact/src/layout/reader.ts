import { Buffer } from 'node:buffer';
import { ReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import type { Ensure } from './lazyFile.js';
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
 * Bounds-checked little/big-endian reads over a byte array. Every read past the end throws
 * `unsupported_target` (`details.reason: "truncated"`); every 64-bit value beyond
 * Number.MAX_SAFE_INTEGER throws `value-out-of-range`.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly buffer: Buffer;
  readonly little: boolean;
  readonly format: BinaryFormat;
  readonly length: number;
  /** Present for a lazily loaded file: makes a range present before it is read. */
  readonly ensure: Ensure | undefined;

  constructor(bytes: Uint8Array, little: boolean, format: BinaryFormat, ensure?: Ensure) {
    this.ensure = ensure;
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.little = little;
    this.format = format;
    this.length = bytes.byteLength;
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
    if (this.ensure) this.ensure(offset, size);
  }

  /** True when `[offset, offset + size)` lies inside the file. */
  contains(offset: number, size: number): boolean {
    const inside = offset >= 0 && size >= 0 && offset + size <= this.length;
    if (inside && this.ensure) this.ensure(offset, size);
    return inside;
  }

  u8(offset: number): number {
    if (offset < 0 || offset >= this.length) this.check(offset, 1, 'byte');
    if (this.ensure) this.ensure(offset, 1);
    return this.bytes[offset]!;
  }

  u16(offset: number): number {
    if (offset < 0 || offset + 2 > this.length) this.check(offset, 2, 'field');
    if (this.ensure) this.ensure(offset, 2);
    return this.view.getUint16(offset, this.little);
  }

  u32(offset: number): number {
    if (offset < 0 || offset + 4 > this.length) this.check(offset, 4, 'field');
    if (this.ensure) this.ensure(offset, 4);
    return this.view.getUint32(offset, this.little);
  }

  i32(offset: number): number {
    if (offset < 0 || offset + 4 > this.length) this.check(offset, 4, 'field');
    if (this.ensure) this.ensure(offset, 4);
    return this.view.getInt32(offset, this.little);
  }

  /** An unsigned 64-bit value as an exact number; refuses values above Number.MAX_SAFE_INTEGER. */
  u64(offset: number, what = 'value'): number {
    if (offset < 0 || offset + 8 > this.length) this.check(offset, 8, 'field');
    if (this.ensure) this.ensure(offset, 8);
    const lo = this.view.getUint32(offset + (this.little ? 0 : 4), this.little);
    const hi = this.view.getUint32(offset + (this.little ? 4 : 0), this.little);
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
    if (offset < 0 || offset >= end || offset >= this.length) return '';
    const limit = Math.min(end, this.length);
    if (this.ensure) return this.lazyCstring(offset, limit);
    let stop = this.buffer.indexOf(0, offset);
    if (stop < 0 || stop > limit) stop = limit;
    return this.buffer.toString('utf8', offset, stop);
  }

  /** cstring over a lazily loaded file: unloaded bytes read as zeros, so load before searching. */
  private lazyCstring(offset: number, limit: number): string {
    let searched = offset;
    for (;;) {
      const step = Math.min(limit, searched + 4096) - searched;
      this.ensure!(searched, step);
      const stop = this.buffer.indexOf(0, searched);
      if (stop >= 0 && stop < searched + step) return this.buffer.toString('utf8', offset, stop);
      searched += step;
      if (searched >= limit) return this.buffer.toString('utf8', offset, limit);
    }
  }

  /** A fixed-width, NUL-padded name (Mach-O segment and section names, PE short section names). */
  fixedString(offset: number, width: number): string {
    this.check(offset, width, 'name');
    let stop = offset;
    while (stop < offset + width && this.bytes[stop] !== 0) stop += 1;
    return this.buffer.toString('latin1', offset, stop);
  }
}

/** Throws `value-out-of-range` unless `value` is a safe non-negative integer. */
export function safeSum(format: BinaryFormat, a: number, b: number, what: string): number {
  const sum = a + b;
  if (!Number.isSafeInteger(sum)) {
    throw malformed(format, 'value-out-of-range', `The ${what} exceeds the largest exactly representable number.`);
  }
  return sum;
}

import { ReaError } from '@rea/evidence';

/**
 * `unsupported_target` (`details.reason: "malformed"`) for a structure that cannot be read as its format
 * says: an offset or index out of range, a size that contradicts its container, a bad magic.
 */
export function malformed(format: string, problem: string, extra: Record<string, string | number> = {}): ReaError {
  return new ReaError('unsupported_target', `The ${format} data is malformed: ${problem}.`, {
    details: { format, reason: 'malformed', problem, ...extra },
    remediation: 'Obtain an intact copy of the file; the bytes as given cannot be read safely.',
  });
}

/** A little-endian view of a buffer in which every read is bounds-checked (out of range: `malformed`). */
export class Bytes {
  constructor(
    readonly buffer: Buffer,
    readonly format: string,
  ) {}

  get length(): number {
    return this.buffer.length;
  }

  /** Throws `malformed` unless [offset, offset + size) lies inside the buffer. */
  need(offset: number, size: number, what: string): void {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(size) || offset < 0 || size < 0) {
      throw malformed(this.format, `${what} at an invalid offset`, { offset: String(offset) });
    }
    if (offset + size > this.buffer.length) {
      throw malformed(this.format, `${what} runs past the end of the data`, { offset, size });
    }
  }

  u8(offset: number, what = 'byte'): number {
    this.need(offset, 1, what);
    return this.buffer[offset]!;
  }

  u16(offset: number, what = 'u16'): number {
    this.need(offset, 2, what);
    return this.buffer.readUInt16LE(offset);
  }

  u32(offset: number, what = 'u32'): number {
    this.need(offset, 4, what);
    return this.buffer.readUInt32LE(offset);
  }

  i32(offset: number, what = 'i32'): number {
    this.need(offset, 4, what);
    return this.buffer.readInt32LE(offset);
  }

  slice(offset: number, size: number, what = 'bytes'): Buffer {
    this.need(offset, size, what);
    return this.buffer.subarray(offset, offset + size);
  }

  /** The bytes [start, end) (checked by the caller) decoded as `encoding`. */
  text(encoding: 'utf8' | 'utf16le' | 'latin1', start: number, end: number): string {
    return this.buffer.toString(encoding, start, end);
  }

  /** Unsigned LEB128 of at most 5 bytes: `[value, next offset]`. */
  uleb128(offset: number, what = 'uleb128'): [number, number] {
    let result = 0;
    let shift = 0;
    let at = offset;
    for (let i = 0; i < 5; i++) {
      const byte = this.u8(at++, what);
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return [result >>> 0, at];
      shift += 7;
    }
    throw malformed(this.format, `${what} is longer than 5 bytes`, { offset });
  }

  /** Signed LEB128 of at most 5 bytes: `[value, next offset]`. */
  sleb128(offset: number, what = 'sleb128'): [number, number] {
    let result = 0;
    let shift = 0;
    let at = offset;
    for (let i = 0; i < 5; i++) {
      const byte = this.u8(at++, what);
      result |= (byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) === 0) {
        if (shift < 32 && (byte & 0x40) !== 0) result |= -1 << shift;
        return [result | 0, at];
      }
    }
    throw malformed(this.format, `${what} is longer than 5 bytes`, { offset });
  }
}

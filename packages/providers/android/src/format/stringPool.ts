import type { Bytes } from './bytes.js';
import { malformed } from './bytes.js';

/** Chunk type of a resource string pool. */
export const STRING_POOL_TYPE = 0x0001;
const UTF8_FLAG = 1 << 8;

/**
 * A resource string pool (the one in binary XML and in resources.arsc), decoded lazily: the header and
 * the offset table are checked when it is made, each string when it is asked for. A string whose offset
 * or length lies outside the pool reads as `null` and is counted in {@link StringPool.faults}.
 */
export class StringPool {
  readonly count: number;
  readonly utf8: boolean;
  /** Strings that could not be decoded (out-of-range offset or length, or bad encoding). */
  faults = 0;
  private readonly offsets: number;
  private readonly stringsStart: number;
  private readonly end: number;
  private readonly cache = new Map<number, string | null>();

  constructor(
    private readonly bytes: Bytes,
    chunk: number,
  ) {
    const headerSize = bytes.u16(chunk + 2, 'string pool header size');
    const size = bytes.u32(chunk + 4, 'string pool size');
    bytes.need(chunk, size, 'string pool');
    if (headerSize < 28 || headerSize > size) throw malformed(bytes.format, 'string pool header size is out of range');
    this.count = bytes.u32(chunk + 8, 'string count');
    const styleCount = bytes.u32(chunk + 12, 'style count');
    this.utf8 = (bytes.u32(chunk + 16, 'string pool flags') & UTF8_FLAG) !== 0;
    this.offsets = chunk + headerSize;
    this.stringsStart = chunk + bytes.u32(chunk + 20, 'strings start');
    this.end = chunk + size;
    if ((this.count + styleCount) * 4 > size - headerSize) {
      throw malformed(bytes.format, 'string pool declares more strings than it holds', { count: this.count, size });
    }
  }

  /** The string at `index`, or null when the index or its bytes are out of range. */
  get(index: number): string | null {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) {
      this.faults++;
      return null;
    }
    const cached = this.cache.get(index);
    if (cached !== undefined) return cached;
    let value: string | null;
    try {
      const at = this.stringsStart + this.bytes.u32(this.offsets + index * 4);
      value = this.utf8 ? this.utf8At(at) : this.utf16At(at);
    } catch {
      value = null;
    }
    if (value === null) this.faults++;
    if (this.cache.size < 65_536) this.cache.set(index, value);
    return value;
  }

  private utf8At(at: number): string | null {
    let p = at;
    const length = (): number => {
      const first = this.bytes.u8(p++);
      return (first & 0x80) !== 0 ? ((first & 0x7f) << 8) | this.bytes.u8(p++) : first;
    };
    length(); // length in UTF-16 units, not needed
    const byteLength = length();
    if (p + byteLength > this.end) return null;
    return this.bytes.text('utf8', p, p + byteLength);
  }

  private utf16At(at: number): string | null {
    let p = at;
    let units = this.bytes.u16(p);
    p += 2;
    if ((units & 0x8000) !== 0) {
      units = ((units & 0x7fff) << 16) | this.bytes.u16(p);
      p += 2;
    }
    if (p + units * 2 > this.end) return null;
    return this.bytes.text('utf16le', p, p + units * 2);
  }
}

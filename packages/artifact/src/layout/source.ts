import { Buffer } from 'node:buffer';

/** Bytes of a source at `base`: index them with `absoluteOffset - base`. */
export interface Region {
  readonly base: number;
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly buffer: Buffer;
}

/**
 * Random access to the bytes of a binary: an array in memory, or a file read on demand. Callers
 * bounds-check against `length` before asking for a region.
 */
export interface ByteSource {
  readonly length: number;
  /** A region holding at least `[offset, offset + length)`. */
  region(offset: number, length: number): Region;
}

function regionOf(bytes: Uint8Array, base: number): Region {
  return {
    base,
    bytes,
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  };
}

/** A source over bytes in memory: every region is the whole array (base 0), nothing is copied. */
export function memorySource(bytes: Uint8Array): ByteSource & { whole: Region } {
  const whole = regionOf(bytes, 0);
  return { length: bytes.byteLength, whole, region: () => whole };
}

/** The bytes `[offset, offset + size)` of `source` as a source of their own (a fat Mach-O slice). */
export function subSource(source: ByteSource, offset: number, size: number): ByteSource {
  return {
    length: size,
    region(at, length) {
      const inner = source.region(offset + at, length);
      return { ...inner, base: inner.base - offset };
    },
  };
}

/** Wraps freshly read bytes as a region at `base`. */
export function freshRegion(bytes: Uint8Array, base: number): Region {
  return regionOf(bytes, base);
}

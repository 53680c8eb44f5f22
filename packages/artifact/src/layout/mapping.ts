import type { ByteSource } from './source.js';

function slice(source: ByteSource, offset: number, length: number): Uint8Array {
  const region = source.region(offset, length);
  return region.bytes.subarray(offset - region.base, offset - region.base + length);
}

/** One mapped range: `memorySize` bytes at `address`, the first `fileSize` of them from `offset`. */
export interface MappedRange {
  address: number;
  offset: number;
  memorySize: number;
  fileSize: number;
}

/**
 * Builds `readAt(address, length)` over mapped ranges: the bytes when one range holds the whole
 * request, zero-filled past the range's file bytes (bss), and null when no range holds it or the file
 * is shorter than the range claims.
 */
export function createReadAt(
  source: ByteSource,
  ranges: readonly MappedRange[],
): (address: number, length: number) => Uint8Array | null {
  const sorted = ranges.filter((r) => r.memorySize > 0);
  return (address, length) => {
    if (!Number.isSafeInteger(address) || !Number.isSafeInteger(length) || address < 0 || length < 0) return null;
    for (const range of sorted) {
      if (address < range.address || address + length > range.address + range.memorySize) continue;
      const start = address - range.address;
      const fileBytes = Math.max(0, Math.min(range.fileSize, source.length - range.offset));
      if (start + length <= fileBytes) return slice(source, range.offset + start, length);
      // Past the file bytes: only genuine zero-fill (memory beyond the declared file size) reads as zeros.
      const fromFile = Math.max(0, fileBytes - start);
      if (start + fromFile < range.fileSize && start + length > fileBytes) return null;
      const out = new Uint8Array(length);
      if (fromFile > 0) out.set(slice(source, range.offset + start, fromFile));
      return out;
    }
    return null;
  };
}

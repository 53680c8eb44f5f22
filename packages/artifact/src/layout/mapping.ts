import type { Ensure } from './lazyFile.js';

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
  bytes: Uint8Array,
  ensure: Ensure | undefined,
  ranges: readonly MappedRange[],
): (address: number, length: number) => Uint8Array | null {
  const sorted = ranges.filter((r) => r.memorySize > 0);
  return (address, length) => {
    if (!Number.isSafeInteger(address) || !Number.isSafeInteger(length) || address < 0 || length < 0) return null;
    for (const range of sorted) {
      if (address < range.address || address + length > range.address + range.memorySize) continue;
      const start = address - range.address;
      const fileBytes = Math.max(0, Math.min(range.fileSize, bytes.length - range.offset));
      if (start + length <= fileBytes) ensure?.(range.offset + start, length);
      if (start + length <= fileBytes) return bytes.subarray(range.offset + start, range.offset + start + length);
      // Past the file bytes: only genuine zero-fill (memory beyond the declared file size) reads as zeros.
      const fromFile = Math.max(0, fileBytes - start);
      if (fromFile > 0) ensure?.(range.offset + start, fromFile);
      if (start + fromFile < range.fileSize && start + length > fileBytes) return null;
      const out = new Uint8Array(length);
      if (fromFile > 0) out.set(bytes.subarray(range.offset + start, range.offset + start + fromFile));
      return out;
    }
    return null;
  };
}

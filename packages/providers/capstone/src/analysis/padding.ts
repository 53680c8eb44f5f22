import type { BinaryLayout } from '@rea/artifact';

/** Whether the instruction is alignment padding (NOP forms, INT3, AArch64 NOP/UDF #0). */
export function isPadding(layout: BinaryLayout, address: number, size: number): boolean {
  const b = layout.readAt(address, size);
  if (!b || b.length === 0) return true;
  return paddingBytes(b, 0, b.length, layout.architecture === 'aarch64');
}

/** {@link isPadding} over the instruction bytes `b[start, end)` (non-empty), without a copy. */
export function paddingBytes(b: Uint8Array, start: number, end: number, arm: boolean): boolean {
  if (arm) {
    const at = (k: number) => (start + k < end ? b[start + k]! : 0);
    const word = (at(0) | (at(1) << 8) | (at(2) << 16) | (at(3) << 24)) >>> 0;
    return word === 0xd503201f || word === 0;
  }
  let i = start;
  while (i < end && (b[i] === 0x66 || b[i] === 0x2e)) i += 1;
  const op = i < end ? b[i] : undefined;
  if (op === 0x90 || op === 0xcc || (op === 0x0f && i + 1 < end && b[i + 1] === 0x1f)) return true;
  for (let k = start; k < end; k += 1) if (b[k] !== 0) return false;
  return true;
}

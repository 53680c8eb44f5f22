import type { BinaryLayout, LayoutSection } from '@rea/artifact';
import { CHECK_MASK } from './pace.js';
import type { Pacer } from './pace.js';
import { lowerBound } from './sweep.js';

/**
 * A list of function pointers that a linker lays out inside code: a word of all ones, the pointers,
 * then a zero word (mingw-w64's `__CTOR_LIST__` and `__DTOR_LIST__`, which GNU ld puts in `.text`).
 */
export interface PointerList {
  /** The address of the leading all-ones word. */
  start: number;
  /** The address just past the closing zero word. */
  end: number;
  /** The pointers between the two, in list order. */
  entries: number[];
}

/** The most pointers one list is read for; a longer run is not taken for such a list. */
const MAX_ENTRIES = 1 << 16;

/**
 * The sentinel-delimited pointer lists in the code sections: at each pointer-aligned word of all ones,
 * the words that follow while each is an address in a code section, closed by a zero word. A word of
 * all ones never starts an instruction (x86 `ff ff` is undefined, as is AArch64 `0xffffffff`), and a
 * compiler emits no code that holds one followed by such pointers and a zero word, so these are data:
 * they must be neither decoded nor taken for procedures. Ascending by address.
 */
export async function sentinelPointerLists(
  layout: BinaryLayout,
  sections: readonly LayoutSection[],
  pacer: Pacer,
): Promise<PointerList[]> {
  const size = layout.bits === 64 ? 8 : 4;
  const little = layout.endianness === 'little';
  const starts = Float64Array.from(sections, (s) => s.address);
  const inCode = (a: number) => {
    const s = sections[lowerBound(starts, a + 1) - 1];
    return s !== undefined && a >= s.address && a < s.address + s.size;
  };
  const out: PointerList[] = [];
  for (const section of sections) {
    const bytes = layout.readAt(section.address, Math.min(section.size, section.fileSize));
    if (!bytes) continue;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // Words as two 32-bit halves: `high` is 0 for 32-bit words.
    const high = (at: number) => (size === 4 ? 0 : view.getUint32(little ? at + 4 : at, little));
    const low = (at: number) => view.getUint32(little || size === 4 ? at : at + 4, little);
    const ones = (at: number) => low(at) === 0xffffffff && (size === 4 || high(at) === 0xffffffff);
    let at = (size - (section.address % size)) % size;
    for (let steps = 0; at + size <= bytes.length; at += size) {
      if ((++steps & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
      if (!ones(at)) continue;
      const entries: number[] = [];
      for (let next = at + size; next + size <= bytes.length && entries.length < MAX_ENTRIES; next += size) {
        const value = high(next) * 0x1_0000_0000 + low(next);
        if (value === 0) {
          out.push({ start: section.address + at, end: section.address + next + size, entries });
          at = next;
          break;
        }
        if (!inCode(value)) break;
        entries.push(value);
      }
    }
  }
  return out;
}

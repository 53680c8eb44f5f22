import type { BinaryLayout, LayoutSection } from '@rea/artifact';
import { readX86 } from './fastX86.js';
import { CHECK_MASK } from './pace.js';
import type { Pacer } from './pace.js';
import { paddingBytes } from './padding.js';
import { lowerBound } from './sweep.js';
import type { UnwindExtent } from './unwind.js';

/** How instructions are measured: 4 bytes each, or by the x86 reader in 64- or 32-bit mode. */
type Mode = 'aarch64' | 'x86_64' | 'x86';

/**
 * The first offset of `bytes` from `at` where no padding instruction starts, or the first one at or
 * past `limit` (an instruction may run past it); `base` is the address of `bytes[0]`.
 */
function paddingEnd(bytes: Uint8Array, at: number, limit: number, base: number, mode: Mode): number {
  while (at < limit) {
    const size = mode === 'aarch64' ? 4 : readX86(bytes, at, bytes.length, base + at, mode === 'x86_64');
    if (size === 0 || at + size > bytes.length || !paddingBytes(bytes, at, at + size, mode === 'aarch64')) break;
    at += size;
  }
  return at;
}

/**
 * Whether padding `[from, to)` is alignment: `to` is aligned to a power of two (up to 64) that `from`
 * is not, and the padding is shorter than it.
 */
function aligns(from: number, to: number): boolean {
  let alignment = 1;
  while (alignment < 64 && to % (alignment * 2) === 0) alignment *= 2;
  return to > from && from % alignment !== 0 && to - from < alignment;
}

/** Farthest an extent may start past the end of the one before it for its start to be checked. */
const NEAR = 64;

/**
 * Unwind extents whose start lies in the alignment padding after the extent before them, moved to the
 * first instruction after that padding (an extent that holds nothing else is dropped). Two cases:
 *
 * - the start falls inside a padding instruction, as decoded from the end of the extent before: glibc's
 *   signal return trampoline `__restore_rt` has an FDE that starts one byte before it on purpose (an
 *   unwinder looks up a return address minus one), on the last byte of the multi-byte NOP before it.
 *   Taken as it is, that start cut the NOP, and decoding from it swallowed the trampoline's first
 *   instruction (`add [rax - 0x39], cl` instead of `mov rax, 0xf`);
 * - the extent starts exactly where the one before ends, on padding that aligns the code after it:
 *   hand-written assembly whose unwind entry opens before its alignment (glibc's
 *   `_dl_tlsdesc_undefweak`) made a procedure of padding.
 *
 * A start on an instruction boundary past alignment padding is kept even when it is a NOP or INT3 (a
 * function may begin with patchable NOPs, or be a breakpoint). Other extents are returned as they are;
 * the order is by start.
 */
export async function settleUnwindStarts(
  layout: BinaryLayout,
  sections: readonly LayoutSection[],
  extents: readonly UnwindExtent[],
  pacer: Pacer,
): Promise<UnwindExtent[]> {
  const arm = layout.architecture === 'aarch64';
  const x86 = layout.architecture === 'x86' || layout.architecture === 'x86_64';
  const sorted = [...extents].sort((a, b) => a.start - b.start);
  if (!arm && !x86) return sorted;
  const mode: Mode = arm ? 'aarch64' : layout.architecture === 'x86_64' ? 'x86_64' : 'x86';
  const sectionStarts = Float64Array.from(sections, (s) => s.address);
  let cached = -1;
  let bytes: Uint8Array | null = null;
  const out: UnwindExtent[] = [];
  let previousEnd = Number.NaN;
  for (let k = 0; k < sorted.length; k += 1) {
    if ((k & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const u = sorted[k]!;
    const before = previousEnd;
    previousEnd = Math.max(Number.isNaN(before) ? 0 : before, u.start + u.size);
    if (!(before <= u.start && u.start - before <= NEAR)) {
      out.push(u);
      continue;
    }
    const si = lowerBound(sectionStarts, before + 1) - 1;
    const section = sections[si];
    if (section === undefined || u.start + u.size > section.address + Math.min(section.size, section.fileSize)) {
      out.push(u);
      continue;
    }
    if (si !== cached) {
      cached = si;
      bytes = layout.readAt(section.address, Math.min(section.size, section.fileSize));
    }
    if (!bytes) {
      out.push(u);
      continue;
    }
    const base = section.address;
    const end = u.start + u.size - base;
    // Over the padding from the end of the extent before, up to the start or past it. Past it, the start
    // lies inside a padding instruction; short of it, something other than padding comes first.
    const at = paddingEnd(bytes, before - base, u.start - base, base, mode);
    const inside = at > u.start - base;
    if (!inside && !(at === u.start - base && before === u.start)) {
      out.push(u);
      continue;
    }
    const code = paddingEnd(bytes, at, end, base, mode);
    // An extent that opens on padding where the one before closes is moved on only when that padding
    // aligns the code after it, as alignment does: a function that begins with INT3 or a NOP is kept.
    if (!inside && !aligns(u.start, base + code)) out.push(u);
    else if (code < end) out.push({ start: base + code, size: end - code });
  }
  return out;
}

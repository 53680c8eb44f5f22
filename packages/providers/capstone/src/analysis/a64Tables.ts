import type { BinaryLayout } from '@rea/artifact';
import { RefKind } from './sweep.js';
import type { InstructionTable } from './sweep.js';

/** How far back from the `br` the dispatch sequence is looked for, in instructions. */
const WINDOW = 12;

function word(layout: BinaryLayout, address: number): number | null {
  const b = layout.readAt(address, 4);
  if (!b || b.length < 4) return null;
  return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
}

/** `br Xn`: returns n, else -1. */
function brRegister(w: number): number {
  return (w & 0xfffffc1f) >>> 0 === 0xd61f0000 ? (w >>> 5) & 31 : -1;
}

/** `add Xd, Xn, Wm, <extend> #s` (ADD, extended register). */
function addExtended(w: number) {
  if ((w & 0x7fe00000) >>> 0 !== 0x0b200000) return null;
  return { rd: w & 31, rn: (w >>> 5) & 31, rm: (w >>> 16) & 31, option: (w >>> 13) & 7, shift: (w >>> 10) & 7 };
}

interface LoadRegister {
  rt: number;
  rn: number;
  /** The index register (Rm). */
  rm: number;
  size: number;
  signed: boolean;
}

/**
 * `ldrb/ldrh/ldr/ldrsb/ldrsh/ldrsw Wt|Xt, [Xn, Wm|Xm, <extend> #s]`: a general-register load, register
 * offset. Encoding `size:2 111 V=0 00 opc:2 1 Rm option:3 S 10 Rn Rt`. SIMD/FP loads (V=1), stores
 * (opc=0), PRFM (size=3, opc=2), the unallocated opc=3 at sizes 2 and 3, and the unallocated extend
 * options (option<1> clear) are not loads of an integer entry.
 */
function loadRegister(w: number): LoadRegister | null {
  if ((w & 0x3f200c00) >>> 0 !== 0x38200800) return null;
  const size = w >>> 30;
  const opc = (w >>> 22) & 3;
  if (opc === 0 || (size >= 2 && opc === 3) || (size === 3 && opc === 2)) return null;
  if (((w >>> 13) & 2) === 0) return null;
  return { rt: w & 31, rn: (w >>> 5) & 31, rm: (w >>> 16) & 31, size: 1 << size, signed: opc !== 1 };
}

/** `cmp Wn|Xn, #imm` (SUBS immediate into the zero register): the register and the immediate, else null. */
function compareImmediate(w: number): { rn: number; value: number } | null {
  if ((w & 0x7f80001f) >>> 0 !== 0x7100001f) return null;
  const imm = (w >>> 10) & 0xfff;
  return { rn: (w >>> 5) & 31, value: (w >>> 22) & 1 ? imm * 4096 : imm };
}

/** `mov Wd, Wm` / `mov Xd, Xm` (ORR shifted register from the zero register, no shift): [d, m], else null. */
function registerMove(w: number): [number, number] | null {
  if ((w & 0x7fe0ffe0) >>> 0 !== 0x2a0003e0) return null;
  return [w & 31, (w >>> 16) & 31];
}

/**
 * The registers that hold the table index at the load at `loadAt`: its Rm and every register joined to
 * it by a register move in the window (compilers copy the index before or after bounds-checking it:
 * GCC `mov w2, w0 · cmp w0, #n · … · ldrb w1, [x1, w2, uxtw]`, Clang `cmp w0, #n · … · mov w8, w0 ·
 * ldrb w11, [x9, x8]`).
 */
function indexRegisters(layout: BinaryLayout, t: InstructionTable, first: number, loadAt: number, rm: number) {
  const moves: Array<[number, number]> = [];
  for (let k = loadAt - 1; k >= first; k -= 1) {
    const w = word(layout, t.addressAt(k));
    const move = w === null ? null : registerMove(w);
    if (move && move[0] !== move[1]) moves.push(move);
  }
  const out = new Set([rm]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [d, m] of moves) {
      if (out.has(d) !== out.has(m)) {
        out.add(d).add(m);
        grew = true;
      }
    }
  }
  return out;
}

/** The destination register of ADR, ADRP or ADD (immediate), the instructions that produce addresses. */
function addressDestination(w: number): number {
  const adr = (w & 0x1f000000) >>> 0 === 0x10000000;
  const addImmediate = (w & 0x7f800000) >>> 0 === 0x11000000;
  return adr || addImmediate ? w & 31 : -1;
}

function entryAt(layout: BinaryLayout, address: number, size: number, signed: boolean): number | null {
  const b = layout.readAt(address, size);
  if (!b || b.length < size) return null;
  let value = 0;
  for (let k = size - 1; k >= 0; k -= 1) value = value * 256 + b[k]!;
  const bits = size * 8;
  if (signed && value >= 2 ** (bits - 1)) value -= 2 ** bits;
  return value;
}

/**
 * The case targets of an AArch64 compiler jump table dispatched by the `br` at table index `i`, or
 * null when the sequence before it is not one. The shape (as GCC and Clang emit it):
 * `adrp+add Xt, table` · `ldrb/ldrh/ldr Wk, [Xt, Wi, uxtw #s]` · `adr Xb, base` ·
 * `add Xd, Xb, Wk, sxtb/sxth/sxtw/uxtb/uxth #s` · `br Xd`; each target is `base + extend(entry) << s`.
 * The entry count comes from the bounds check (`cmp Wi, #n` before the load, on the load's index
 * register or a register moved to or from it) when present; entries are read while targets land on an
 * instruction for which `inside` holds (at most 1024).
 */
export function a64JumpTable(
  layout: BinaryLayout,
  t: InstructionTable,
  lo: number,
  i: number,
  isData: (address: number) => boolean,
  inside: (address: number) => boolean,
): number[] | null {
  const br = word(layout, t.addressAt(i));
  const target = br === null ? -1 : brRegister(br);
  if (target < 0) return null;
  const first = Math.max(lo, i - WINDOW);
  let add: ReturnType<typeof addExtended> = null;
  let j = i - 1;
  for (; j >= first && !add; j -= 1) {
    const w = word(layout, t.addressAt(j));
    const candidate = w === null ? null : addExtended(w);
    if (candidate && candidate.rd === target) add = candidate;
  }
  if (!add) return null;
  // The base: the ADR that loaded the add's first operand. The load: the one that produced its index.
  let base = Number.NaN;
  let load: LoadRegister | null = null;
  let loadAt = -1;
  for (let k = j; k >= first; k -= 1) {
    const w = word(layout, t.addressAt(k));
    if (w === null) break;
    if (base !== base && addressDestination(w) === add.rn && t.refKindAt(k) === RefKind.Value) base = t.ref(k);
    const l: LoadRegister | null = load ? null : loadRegister(w);
    if (l && l.rt === add.rm) {
      load = l;
      loadAt = k;
    }
  }
  if (base !== base || !load) return null;
  // The table: the address loaded into the load's base register (ADRP+ADD), in a data section.
  let table = Number.NaN;
  let bound = 1024;
  const index = indexRegisters(layout, t, first, loadAt, load.rm);
  for (let k = loadAt - 1; k >= first; k -= 1) {
    const w = word(layout, t.addressAt(k));
    if (w === null) break;
    if (table !== table && addressDestination(w) === load.rn && t.refKindAt(k) === RefKind.Value) table = t.ref(k);
    const cmp = compareImmediate(w);
    if (cmp && index.has(cmp.rn) && bound === 1024) bound = Math.min(1024, cmp.value + 1);
  }
  if (table !== table || !isData(table)) return null;
  const extendBits = 8 << (add.option & 3);
  const signedExtend = (add.option & 4) !== 0;
  const out = new Set<number>();
  for (let n = 0; n < bound; n += 1) {
    const raw = entryAt(layout, table + n * load.size, load.size, load.signed);
    if (raw === null) break;
    let value = extendBits >= 53 ? raw : ((raw % 2 ** extendBits) + 2 ** extendBits) % 2 ** extendBits;
    if (signedExtend && extendBits < 53 && value >= 2 ** (extendBits - 1)) value -= 2 ** extendBits;
    const caseTarget = base + value * 2 ** add.shift;
    if (!inside(caseTarget)) break;
    out.add(caseTarget);
  }
  return [...out];
}

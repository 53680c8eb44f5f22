/**
 * A table-driven x86 instruction reader for discovery (64- and 32-bit modes): it measures one
 * instruction and derives
 * the {@link Semantics} the Capstone sink would (flow, branch target, referenced address) without
 * formatting any text. It accepts only the encodings it has tables for — the general-purpose, x87 and
 * SSE forms compilers emit — and answers 0 ("ask Capstone") for everything else: VEX/EVEX, segment
 * and control registers, far branches, address-size overrides, `riz` and scale-1 index-only operands,
 * unusual prefix mixes, anything truncated at `end`, images above 2^53. The tests hold it to Capstone
 * over millions of enumerated encodings and over whole system binaries.
 */
import { Flow, RefKind } from './classify.js';
import { referenceFields } from './fields.js';

/** {@link measured}'s `has` bit for a branch target. */
export const HAS_TARGET = 1;
/** {@link measured}'s `has` bit for a referenced address. */
export const HAS_REF = 2;

/**
 * The semantics of the instruction last measured by {@link readX86} (one reused record). `target` and
 * `ref` mean something only when `has` holds their bit; no field holds NaN, and `target` and `ref` are
 * kept as references (see {@link referenceFields}): as fields of doubles, which NaN or an immediate of
 * 2^30 or more would make them, each read and write of them in code V8 has not optimized yet allocated
 * a box, 11 MB in a `rea analyze` of /usr/bin/bash (a fifth of all it allocated).
 */
export const measured = referenceFields({ flow: 0, target: 0, ref: 0, refKind: 0, has: 0 }, 'target', 'ref');

/** {@link measured} as the Capstone sink gives semantics: NaN where there is no target or reference. */
export const fast = {
  get flow(): number {
    return measured.flow;
  },
  get target(): number {
    return measured.has & HAS_TARGET ? measured.target : Number.NaN;
  },
  get ref(): number {
    return measured.has & HAS_REF ? measured.ref : Number.NaN;
  },
  get refKind(): number {
    return measured.refKind;
  },
};

// One-byte map. Low bits: operand layout; high bits: the operation class.
const MODRM = 0x01;
const I8 = 0x02;
const I16 = 0x04;
/** imm16 with 0x66, else imm32. */
const IZ = 0x08;
/** imm16 / imm32 / imm64 (B8+r): by 0x66 and REX.W. */
const IV = 0x10;
/** rel8 / rel32 branch displacement. */
const REL8 = 0x20;
const REL32 = 0x40;
/** Allows F2/F3 (string operations, `repz ret`, `pause`). */
const REP = 0x80;

// Operation classes (>> 8).
const C_OTHER = 0;
const C_CALL = 1;
const C_JUMP = 2;
const C_COND = 3;
const C_RET = 4;
const C_STOP = 5;
/** mov/push: a register destination's immediate may be an address. */
const C_IMM = 6;
const C_LEA = 7;
/** Per-ModRM-reg groups, resolved in code. */
const C_GROUP = 8;
/** No ModRM memory operand allowed, no immediate meaning: plain. */
const C_PLAIN = 9;
/** `mov` between the accumulator and an absolute address (A0-A3; 32-bit mode only). */
const C_MOFFS = 10;

const MAX_ADDRESS = Number.MAX_SAFE_INTEGER - 0x1_0000_0000;
const ONE = new Uint16Array(256);
const TWO = new Uint16Array(256);
/** Allowed mandatory prefixes per 0F opcode: bit 0 none, 1 = 66, 2 = F3, 3 = F2; bit 4 memory only, 5 register only. */
const SSE = new Uint8Array(256);
const SSE38 = new Uint8Array(256);
const SSE3A = new Uint8Array(256);
/** 0F opcodes that accept LOCK (with a memory destination). */
const LOCK2 = new Uint8Array(256);
/** One-byte opcodes that accept LOCK (with a memory destination; group opcodes checked by reg). */
const LOCK1 = new Uint8Array(256);

function set(table: Uint16Array, from: number, to: number, value: number): void {
  for (let op = from; op <= to; op += 1) table[op] = value;
}
const cls = (c: number) => c << 8;

// Arithmetic rows 00-3F: r/m,r  r,r/m  al,imm8  eAX,immz.
for (const row of [0x00, 0x08, 0x10, 0x18, 0x20, 0x28, 0x30, 0x38]) {
  set(ONE, row, row + 3, MODRM);
  ONE[row + 4] = I8 | cls(C_PLAIN);
  ONE[row + 5] = IZ | cls(C_PLAIN);
  if (row !== 0x38) LOCK1[row] = LOCK1[row + 1] = 1;
}
set(ONE, 0x50, 0x5f, cls(C_PLAIN)); // push/pop r: no operand can name an address
ONE[0x63] = MODRM; // movsxd
ONE[0x68] = IZ | cls(C_IMM); // push imm32
ONE[0x69] = MODRM | IZ;
ONE[0x6a] = I8 | cls(C_PLAIN);
ONE[0x6b] = MODRM | I8;
set(ONE, 0x6c, 0x6f, REP | cls(C_PLAIN));
set(ONE, 0x70, 0x7f, REL8 | cls(C_COND));
ONE[0x80] = MODRM | I8;
ONE[0x81] = MODRM | IZ;
ONE[0x83] = MODRM | I8;
LOCK1[0x80] = LOCK1[0x81] = LOCK1[0x83] = 2; // all but /7 (cmp)
ONE[0x84] = ONE[0x85] = MODRM;
ONE[0x86] = ONE[0x87] = MODRM;
LOCK1[0x86] = LOCK1[0x87] = 1;
// not/neg, inc/dec: checked by ModRM.reg below.
LOCK1[0xf6] = LOCK1[0xf7] = LOCK1[0xfe] = LOCK1[0xff] = 1;
set(ONE, 0x88, 0x8b, MODRM | cls(C_IMM));
ONE[0x8d] = MODRM | cls(C_LEA);
ONE[0x8f] = MODRM | cls(C_GROUP);
ONE[0x90] = REP | cls(C_PLAIN); // nop, pause
set(ONE, 0x91, 0x99, cls(C_PLAIN));
set(ONE, 0x9c, 0x9f, cls(C_PLAIN));
set(ONE, 0xa4, 0xa7, REP | cls(C_PLAIN));
ONE[0xa8] = I8 | cls(C_PLAIN);
ONE[0xa9] = IZ | cls(C_PLAIN);
set(ONE, 0xaa, 0xaf, REP | cls(C_PLAIN));
set(ONE, 0xb0, 0xb7, I8 | cls(C_PLAIN));
set(ONE, 0xb8, 0xbf, IV | cls(C_IMM));
ONE[0xc0] = ONE[0xc1] = MODRM | I8 | cls(C_GROUP);
ONE[0xc2] = I16 | cls(C_RET);
ONE[0xc3] = REP | cls(C_RET);
ONE[0xc6] = MODRM | I8 | cls(C_GROUP);
ONE[0xc7] = MODRM | IZ | cls(C_GROUP);
ONE[0xc8] = I16 | I8 | cls(C_PLAIN);
ONE[0xc9] = cls(C_PLAIN);
ONE[0xca] = I16 | cls(C_RET);
ONE[0xcb] = cls(C_RET);
ONE[0xcc] = cls(C_STOP);
ONE[0xcd] = I8 | cls(C_PLAIN);
ONE[0xcf] = cls(C_RET);
set(ONE, 0xd0, 0xd3, MODRM | cls(C_GROUP));
set(ONE, 0xe0, 0xe3, REL8 | cls(C_COND));
set(ONE, 0xe4, 0xe7, I8 | cls(C_PLAIN));
ONE[0xe8] = REL32 | cls(C_CALL);
ONE[0xe9] = REL32 | cls(C_JUMP);
ONE[0xeb] = REL8 | cls(C_JUMP);
set(ONE, 0xec, 0xef, cls(C_PLAIN));
ONE[0xf4] = cls(C_STOP);
ONE[0xf5] = cls(C_PLAIN);
ONE[0xf6] = MODRM | cls(C_GROUP);
ONE[0xf7] = MODRM | cls(C_GROUP);
set(ONE, 0xf8, 0xfd, cls(C_PLAIN));
ONE[0xfe] = MODRM | cls(C_GROUP);
ONE[0xff] = MODRM | cls(C_GROUP);
set(ONE, 0xd8, 0xdf, MODRM | cls(C_GROUP)); // x87

/** x87 escapes D8-DF: memory forms by ModRM.reg (bit per reg), and register forms by ModRM byte. */
const X87_MEMORY = [0xff, 0xfd, 0xff, 0xaf, 0xff, 0xdf, 0xff, 0xff];
const X87_REGISTER = new Uint8Array(8 * 64);
function x87(escape: number, from: number, to: number): void {
  for (let m = from; m <= to; m += 1) X87_REGISTER[(escape - 0xd8) * 64 + (m - 0xc0)] = 1;
}
x87(0xd8, 0xc0, 0xff);
x87(0xdc, 0xc0, 0xcf);
x87(0xdc, 0xe0, 0xff);
x87(0xd9, 0xc0, 0xcf);
for (const m of [0xe0, 0xe1, 0xe4, 0xe5]) x87(0xd9, m, m);
x87(0xd9, 0xe8, 0xee);
x87(0xd9, 0xf0, 0xff);
x87(0xda, 0xc0, 0xdf);
x87(0xda, 0xe9, 0xe9);
x87(0xdb, 0xc0, 0xdf);
x87(0xdb, 0xe2, 0xe3);
x87(0xdb, 0xe8, 0xf7);
x87(0xdd, 0xc0, 0xc7);
x87(0xdd, 0xd0, 0xef);
x87(0xde, 0xc0, 0xcf);
x87(0xde, 0xd9, 0xd9);
x87(0xde, 0xe0, 0xff);
x87(0xdf, 0xe0, 0xe0);
x87(0xdf, 0xe8, 0xf7);

/** The one-byte map in 32-bit mode: 40-4F are inc/dec, and the forms 64-bit mode dropped are back. */
const ONE32 = ONE.slice();
set(ONE32, 0x40, 0x4f, cls(C_PLAIN));
for (const op of [0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x60, 0x61, 0xce])
  ONE32[op] = cls(C_PLAIN); // push/pop segment registers, BCD adjustments, pusha/popa, into
ONE32[0xd4] = ONE32[0xd5] = I8 | cls(C_PLAIN); // aam, aad
ONE32[0x63] = 0; // arpl
set(ONE32, 0xa0, 0xa3, cls(C_MOFFS));

// Two-byte map (0F xx), general-purpose part; SSE forms are in SSE/SSE38/SSE3A.
TWO[0x05] = cls(C_PLAIN); // syscall
TWO[0x0b] = cls(C_STOP); // ud2
TWO[0x1f] = MODRM | cls(C_GROUP); // nop r/m (/0 only)
TWO[0x1e] = MODRM | REP | cls(C_GROUP); // endbr64 / endbr32 only
TWO[0x31] = cls(C_PLAIN); // rdtsc
TWO[0xa2] = cls(C_PLAIN); // cpuid
set(TWO, 0x40, 0x4f, MODRM); // cmovcc
set(TWO, 0x80, 0x8f, REL32 | cls(C_COND));
set(TWO, 0x90, 0x9f, MODRM); // setcc
for (const op of [0xa3, 0xa5, 0xab, 0xad, 0xaf, 0xb0, 0xb1, 0xb3, 0xb6, 0xb7, 0xbb, 0xbe, 0xbf, 0xc0, 0xc1])
  TWO[op] = MODRM;
TWO[0xa4] = TWO[0xac] = MODRM | I8;
TWO[0xba] = MODRM | I8 | cls(C_GROUP);
TWO[0xbc] = TWO[0xbd] = MODRM | REP; // bsf/bsr, tzcnt/lzcnt with F3
TWO[0xb8] = MODRM | REP | cls(C_GROUP); // popcnt (F3 only)
set(TWO, 0xc8, 0xcf, cls(C_PLAIN)); // bswap
for (const op of [0xab, 0xb0, 0xb1, 0xb3, 0xbb, 0xc0, 0xc1]) LOCK2[op] = 1;
LOCK2[0xba] = 2; // /5-/7

const N = 1;
const P66 = 2;
const F3 = 4;
const F2 = 8;
const MEM = 16;
const REG = 32;
const IMM = 64;
function sse(table: Uint8Array, ops: number[], mask: number): void {
  for (const op of ops) table[op] = mask;
}
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const ALL = N | P66 | F3 | F2;
sse(SSE, [0x10, 0x11], ALL);
sse(SSE, [0x12], N | F3 | F2);
sse(SSE, [0x13, 0x17, 0x2b], N | P66 | MEM);
sse(SSE, [0x14, 0x15, 0x28, 0x29, 0x2e, 0x2f], N | P66);
sse(SSE, [0x16], N | F3);
sse(SSE, [0x2a, 0x2c, 0x2d], ALL);
sse(SSE, [0x50], N | P66 | REG);
sse(SSE, [0x51, 0x58, 0x59, 0x5a, 0x5c, 0x5d, 0x5e, 0x5f], ALL);
sse(SSE, [0x52, 0x53], N | F3);
sse(SSE, [0x54, 0x55, 0x56, 0x57], N | P66);
sse(SSE, [0x5b], N | P66 | F3);
sse(SSE, range(0x60, 0x6b), N | P66);
sse(SSE, [0x6c, 0x6d], P66);
sse(SSE, [0x6e], N | P66);
sse(SSE, [0x6f, 0x7f], N | P66 | F3);
sse(SSE, [0x70], ALL | IMM);
sse(SSE, [0x71, 0x72, 0x73], N | P66 | IMM | REG); // shift groups: ModRM.reg checked below
sse(SSE, [0x74, 0x75, 0x76], N | P66);
sse(SSE, [0x7c, 0x7d], P66 | F2);
sse(SSE, [0x7e], N | P66 | F3);
sse(SSE, [0xc2], ALL | IMM);
sse(SSE, [0xc3], N | MEM);
sse(SSE, [0xc4], N | P66 | IMM);
sse(SSE, [0xc5], N | P66 | IMM | REG);
sse(SSE, [0xc6], N | P66 | IMM);
sse(SSE, [0xd0], P66 | F2);
sse(SSE, [...range(0xd1, 0xd5), ...range(0xd8, 0xdf), ...range(0xe0, 0xe5), ...range(0xe8, 0xef)], N | P66);
sse(SSE, [...range(0xf1, 0xf6), ...range(0xf8, 0xfe)], N | P66);
sse(SSE, [0xd6], P66);
sse(SSE, [0xd7], N | P66 | REG);
sse(SSE, [0xe6], P66 | F3 | F2);
sse(SSE, [0xe7], N | P66 | MEM);
sse(SSE38, [...range(0x00, 0x0b), 0x1c, 0x1d, 0x1e], N | P66);
sse(SSE38, [0x10, 0x14, 0x15, 0x17, ...range(0x20, 0x25), ...range(0x28, 0x2b), ...range(0x30, 0x35)], P66);
sse(SSE38, range(0x37, 0x41), P66);
SSE38[0x2a] = P66 | MEM; // movntdqa
sse(SSE3A, [0x0f], N | P66 | IMM);
sse(SSE3A, [...range(0x08, 0x0e), ...range(0x14, 0x17), ...range(0x20, 0x22), 0x40, 0x41, 0x42, 0x44], P66 | IMM);
sse(SSE3A, range(0x60, 0x63), P66 | IMM);

/** {@link readX86} in 64-bit mode. */
export function readX86_64(b: Uint8Array, at: number, end: number, address: number): number {
  return readX86(b, at, end, address, true);
}

/**
 * Whether the bytes at `at` (before `end`) are an encoding Capstone decodes as nothing, known without
 * loading it: opcode FE (INC/DEC r/m8) with a ModRM extension other than /0 and /1 (in either mode),
 * or an instruction the reader measures from the bytes of `b` that follow but that runs past `end`
 * (cut short by the next known function start). Both turn up between functions (damaged NOPs,
 * padding), and the sweep then skips one byte as it does for every invalid encoding.
 */
export function knownInvalidX86(b: Uint8Array, at: number, end: number, address: number, long: boolean): boolean {
  if (at + 1 < end && b[at] === 0xfe && ((b[at + 1]! >> 3) & 7) >= 2) return true;
  return readX86(b, at, Math.min(b.length, at + 15), address, long) > end - at;
}

/** {@link readX86} in 32-bit mode. */
export function readX86_32(b: Uint8Array, at: number, end: number, address: number): number {
  return readX86(b, at, end, address, false);
}

/**
 * Measures the x86 instruction (64-bit mode when `long`, else 32-bit) at `at` (which must end before
 * `end`) located at `address` and fills {@link measured}. Returns its length, or 0 when the encoding is left
 * to Capstone (including every invalid or truncated one).
 */
export function readX86(b: Uint8Array, at: number, end: number, address: number, long: boolean): number {
  // Addresses (and so targets) must stay exact doubles, as the sink's parse of Capstone's text is.
  if (address > (long ? MAX_ADDRESS : 0xffff_ffff)) return 0;
  let i = at;
  let p66 = 0;
  let rep = 0; // 0xf2 / 0xf3
  let lock = 0;
  let seg = 0;
  // Legacy prefixes, each group at most once.
  for (;;) {
    if (i >= end) return 0;
    const c = b[i]!;
    if (c === 0x66) {
      p66 = 1; // repeated operand-size prefixes (padding) mean the same
    } else if (c === 0xf2 || c === 0xf3) {
      if (rep) return 0;
      rep = c;
    } else if (c === 0xf0) {
      if (lock) return 0;
      lock = 1;
    } else if (c === 0x2e || c === 0x3e || c === 0x64 || c === 0x65 || c === 0x26 || c === 0x36) {
      if (seg && seg !== c) return 0;
      seg = c;
    } else break;
    i += 1;
  }
  let rex = 0;
  let rexW = 0;
  if (long && (b[i]! & 0xf0) === 0x40) {
    rex = b[i]!;
    rexW = rex & 8;
    i += 1;
    if (i >= end) return 0;
  }
  let op = b[i++]!;
  let spec: number;
  let sseMask = 0;
  let map = 1;
  if (op === 0x0f) {
    if (i >= end) return 0;
    op = b[i++]!;
    map = 2;
    if (op === 0x38 || op === 0x3a) {
      if (i >= end) return 0;
      const table = op === 0x38 ? SSE38 : SSE3A;
      op = b[i++]!;
      sseMask = table[op]!;
      if (sseMask === 0) return 0;
      map = op === 0x38 ? 3 : 4;
      spec = MODRM | (sseMask & IMM ? I8 : 0);
    } else if (SSE[op]) {
      sseMask = SSE[op]!;
      spec = MODRM | (sseMask & IMM ? I8 : 0);
    } else {
      spec = TWO[op]!;
      if (spec === 0) return 0;
    }
  } else {
    spec = (long ? ONE : ONE32)[op]!;
    if (spec === 0) return 0;
  }
  if (sseMask) {
    // A mandatory prefix: exactly one of none / 66 / F3 / F2, and no lock or segment mix-ups.
    if (lock || (p66 && rep)) return 0;
    const which = rep === 0xf3 ? F3 : rep === 0xf2 ? F2 : p66 ? P66 : N;
    if (!(sseMask & which)) return 0;
  } else if (rep && !(spec & REP)) return 0;

  const klass = spec >> 8;
  // ModRM and the memory operand.
  let reg = 0;
  let mod = 3;
  let rip = 0;
  let disp = 0;
  /** Whether the instruction has a memory operand. */
  let memory = false;
  /**
   * A memory operand without a base register: 1 absolute `[disp32]`, 2 index-only `[index*scale + disp32]`,
   * 3 index-only with scale 1 (printed `[index + disp32]`, which names no address for the sink).
   */
  let noBase = 0;
  if (klass === C_MOFFS) {
    // A 32-bit absolute address; segment-prefixed it names no address for the sink.
    if (i + 4 > end) return 0;
    disp = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
    i += 4;
    memory = true;
    noBase = 1;
  } else if (spec & MODRM) {
    if (i >= end) return 0;
    const modrm = b[i++]!;
    mod = modrm >> 6;
    memory = mod !== 3;
    reg = (modrm >> 3) & 7;
    const rm = modrm & 7;
    if (mod !== 3) {
      if (rm === 4) {
        if (i >= end) return 0;
        const sib = b[i++]!;
        if (mod === 0 && (sib & 7) === 5) {
          // No base register: absolute, or index-only.
          const index = ((sib >> 3) & 7) | (rex & 2 ? 8 : 0);
          // No index with a scale prints as `[riz*8 + …]`; an index with scale 1 as `[rax + …]`.
          if (sib >> 6 === 0) noBase = index === 4 ? 1 : 3;
          else if (index === 4) return 0;
          else noBase = 2;
          if (i + 4 > end) return 0;
          disp = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
          i += 4;
        }
      }
      if (!noBase && mod === 0 && rm === 5) {
        // rip-relative in 64-bit mode, absolute in 32-bit mode.
        if (i + 4 > end) return 0;
        if (long) rip = 1;
        else noBase = 1;
        disp = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
        i += 4;
      } else if (!noBase && mod === 1) i += 1;
      else if (!noBase && mod === 2) i += 4;
      if (noBase && seg) {
        // A segment-prefixed absolute operand (`fs:[0x28]`, `ds:[0x…]`) names no address for the sink:
        // taken in 32-bit mode, and for fs:/gs: in 64-bit mode; the other mixes go to Capstone.
        if (noBase >= 2 || (long && seg !== 0x64 && seg !== 0x65)) return 0;
      }
      if (rip && seg) return 0;
    }
    if (sseMask) {
      if (sseMask & MEM && mod === 3) return 0;
      if (sseMask & REG && mod !== 3) return 0;
      if (map === 2 && op >= 0x71 && op <= 0x73) {
        // 71/72: /2 /4 /6; 73: /2 /6, and /3 /7 with 66 only.
        const ok =
          op === 0x73
            ? reg === 2 || reg === 6 || ((reg === 3 || reg === 7) && p66)
            : reg === 2 || reg === 4 || reg === 6;
        if (!ok) return 0;
      }
    }
  }
  if (lock) {
    const allowed = map === 1 ? LOCK1[op]! : map === 2 ? LOCK2[op]! : 0;
    if (mod === 3 || allowed === 0) return 0;
    if (allowed === 2 && (map === 1 ? reg === 7 : reg < 5)) return 0;
  }

  // Group opcodes: which ModRM.reg values are taken, and what they are.
  let kind = klass;
  if (klass === C_GROUP) {
    if (map === 1) {
      switch (op) {
        case 0x8f: // pop r/m
          if (reg !== 0) return 0;
          kind = C_OTHER;
          break;
        case 0xc0:
        case 0xc1:
        case 0xd0:
        case 0xd1:
        case 0xd2:
        case 0xd3:
          if (reg === 6) return 0;
          kind = C_OTHER;
          break;
        case 0xc6:
        case 0xc7:
          if (reg !== 0) return 0;
          kind = C_IMM;
          break;
        case 0xf6:
        case 0xf7:
          if (reg === 1) return 0;
          if (reg === 0) spec |= op === 0xf6 ? I8 : IZ;
          if (lock && reg !== 2 && reg !== 3) return 0;
          kind = C_OTHER;
          break;
        case 0xfe:
          if (reg > 1) return 0;
          kind = C_OTHER;
          break;
        case 0xd8:
        case 0xd9:
        case 0xda:
        case 0xdb:
        case 0xdc:
        case 0xdd:
        case 0xde:
        case 0xdf:
          if (lock || p66 || rep) return 0;
          if (mod === 3 ? !X87_REGISTER[(op - 0xd8) * 64 + (b[i - 1]! - 0xc0)] : !(X87_MEMORY[op - 0xd8]! & (1 << reg)))
            return 0;
          kind = C_OTHER;
          break;
        case 0xff:
          if (reg === 3 || reg === 5 || reg === 7) return 0;
          if (lock && reg > 1) return 0;
          kind = reg === 2 ? C_CALL : reg === 4 ? C_JUMP : reg === 6 ? C_IMM : C_OTHER;
          if ((kind === C_CALL || kind === C_JUMP) && (p66 || rep)) return 0;
          break;
        default:
          return 0;
      }
    } else {
      switch (op) {
        case 0x1f:
          if (reg !== 0) return 0;
          break;
        case 0x1e: // endbr64 (F3 0F 1E FA) and endbr32 (F3 0F 1E FB) only
          if (rep !== 0xf3 || p66 || rex || mod !== 3 || reg !== 7 || (b[i - 1] !== 0xfa && b[i - 1] !== 0xfb))
            return 0;
          break;
        case 0xba:
          if (reg < 4) return 0;
          break;
        case 0xb8:
          // popcnt: Capstone refuses F3 <segment> 66 0F B8, so any segment mix is left to it.
          if (rep !== 0xf3 || (p66 && seg)) return 0;
          break;
        default:
          return 0;
      }
      kind = C_OTHER;
    }
  }
  if (map === 2 && !sseMask && (rep === 0xf2 || (rep && op !== 0x1e && op !== 0xb8 && op !== 0xbc && op !== 0xbd)))
    return 0;
  if (op === 0x68 && map === 1 && p66) return 0;
  if (kind === C_LEA && mod === 3) return 0;
  // retfq / iretq print differently with REX.W; far returns are rare enough to leave to Capstone.
  if (rex && map === 1 && (op === 0xca || op === 0xcb || op === 0xcf)) return 0;
  if (map === 1 && op === 0x90 && rep && p66) return 0;
  if (
    (klass === C_CALL || klass === C_JUMP || klass === C_COND || klass === C_RET) &&
    (p66 || (rep && !(klass === C_RET && rep === 0xf3 && op === 0xc3)))
  )
    return 0;

  // Immediates and branch displacements.
  let imm = 0;
  let immHi = 0;
  let immBytes = 0;
  let rel = 0;
  if (spec & REL8) {
    if (i + 1 > end) return 0;
    rel = (b[i]! << 24) >> 24;
    i += 1;
  } else if (spec & REL32) {
    if (i + 4 > end) return 0;
    rel = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
    i += 4;
  }
  if (spec & I16) {
    if (i + 2 > end) return 0;
    i += 2;
  }
  if (spec & IV) {
    immBytes = rexW ? 8 : p66 ? 2 : 4;
  } else if (spec & IZ) immBytes = p66 && !rexW ? 2 : 4;
  if (immBytes) {
    if (i + immBytes > end) return 0;
    // The low two bytes are read by one expression for every width: reads of bytes that only a rare
    // form reaches (a 16-bit immediate) have no type feedback when V8 optimizes this function, and V8
    // then throws its optimized code away on the first such instruction (and compiles it again).
    imm = b[i]! | (b[i + 1]! << 8);
    if (immBytes !== 2) {
      imm = (imm | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
      if (immBytes === 8) immHi = (b[i + 4]! | (b[i + 5]! << 8) | (b[i + 6]! << 16) | (b[i + 7]! << 24)) >>> 0;
    }
    i += immBytes;
  }
  if (spec & I8) {
    if (i + 1 > end) return 0;
    i += 1;
  }
  if (i > end) return 0; // a displacement or immediate runs past the bytes given
  const size = i - at;
  if (size > 15) return 0;
  const next = address + size;

  // Semantics, as the Capstone sink derives them from the printed instruction.
  measured.has = 0;
  measured.refKind = RefKind.None;
  measured.flow = Flow.None;
  // Capstone prints displacements of magnitude below 10 in decimal (`[rip - 9]`, `[rip]`): such an
  // operand names no address for the sink; neither does `[rax*8 - 0x10]`, nor `fs:[0x28]`.
  const ripRef = rip
    ? disp > 9 || disp < -9
      ? next + disp
      : Number.NaN
    : (noBase === 1 || noBase === 2) && !seg && disp >= 10
      ? disp
      : noBase === 1 && !seg && disp < 0
        ? long
          ? // Sign-extended: printed as a 64-bit value, which the sink parses as such.
            Number.parseInt(`ffffffff${(disp >>> 0).toString(16)}`, 16)
          : disp >>> 0
        : Number.NaN;
  switch (kind) {
    case C_CALL:
    case C_JUMP:
    case C_COND: {
      if (spec & (REL8 | REL32)) {
        // 32-bit targets wrap at 2^32. Capstone prints targets below 10 in decimal and negative ones
        // as 64-bit values.
        const target = long ? next + rel : (next + rel) >>> 0;
        if (target < 10) return 0;
        measured.flow = kind === C_CALL ? Flow.Call : kind === C_JUMP ? Flow.Jump : Flow.Conditional;
        measured.target = target;
        measured.has = HAS_TARGET;
        return size;
      }
      measured.flow = kind === C_CALL ? Flow.IndirectCall : Flow.IndirectJump;
      if (ripRef === ripRef) {
        measured.ref = ripRef;
        measured.has = HAS_REF;
        measured.refKind = RefKind.Memory;
      }
      return size;
    }
    case C_RET:
      measured.flow = Flow.Return;
      return size;
    case C_STOP:
      measured.flow = Flow.Stop;
      return size;
    case C_IMM: {
      if (memory) {
        if (ripRef === ripRef) {
          measured.ref = ripRef;
          measured.has = HAS_REF;
          measured.refKind = RefKind.Memory;
        }
        return size;
      }
      if (immBytes === 0) return size;
      let value: number;
      if (immBytes === 8) value = immHi * 0x1_0000_0000 + imm;
      else if (immBytes === 4 && ((op === 0x68 && long) || (op === 0xc7 && rexW)) && imm >= 0x8000_0000) {
        // Sign-extended to 64 bits: printed negative or above 2^53, never an address here.
        return size;
      } else value = imm;
      if (value >= 0x1000 && Number.isSafeInteger(value)) {
        measured.ref = value;
        measured.has = HAS_REF;
        measured.refKind = RefKind.Value;
      }
      return size;
    }
    case C_LEA:
      if (ripRef === ripRef) {
        measured.ref = ripRef;
        measured.has = HAS_REF;
        measured.refKind = RefKind.Value;
      }
      return size;
    case C_PLAIN:
      if (seg && !(spec & MODRM)) return 0;
      return size;
    default:
      if (ripRef === ripRef) {
        measured.ref = ripRef;
        measured.has = HAS_REF;
        measured.refKind = RefKind.Memory;
      }
      return size;
  }
}

/**
 * Instructions of the kinds compilers emit most (x86-64): a function's prologue and epilogue, moves,
 * loads and stores through every addressing form, arithmetic, tests and compares, direct, indirect and
 * table jumps, calls through the PLT and the GOT, SSE moves, padding, a locked exchange, a
 * segment-relative load, x87, string and VEX forms, SSE forms that take only memory or only a register
 * (a non-temporal store, vector shifts by an immediate), an address a few bytes from the instruction
 * pointer and a load from an absolute negative address.
 * Each of the last kinds has a test or a computation of its own in the reader: V8 drops the reader's
 * optimized code at the first such instruction a sweep meets if the reader never met one before, as the
 * sweep of a large program does. {@link warmX86} reads them.
 */
export const WARM_CODE = Buffer.from(
  [
    'f30f1efa',
    '55',
    '4889e5',
    '4157',
    '4156',
    '53',
    '4883ec18',
    '488b0510203040',
    '488d3d10203040',
    'e810203040',
    '85c0',
    '740a',
    '0f8410203040',
    '89c7',
    '8b442408',
    '488b44c500',
    '0fb607',
    '31c0',
    '4863d0',
    '83f805',
    '3d00010000',
    'c744240401000000',
    '660f1f440000',
    '0f1f4000',
    '6690',
    '4889df',
    'ff1510203040',
    'ffe0',
    'ff24c510203040',
    'eb05',
    'e910203040',
    '4883c418',
    '5b',
    '415e',
    '5d',
    'c3',
    'cc',
    '660fefc0',
    'f20f100510203040',
    '0f1107',
    '48b88877665544332211',
    'b801000000',
    '66c7070100',
    'c20800',
    'f0480fb117',
    '0f05',
    '64488b042528000000',
    'd9c9',
    'dd07',
    'c5f877',
    'f348ab',
    '0fafc2',
    '48c1e803',
    'f6c201',
    '0f94c0',
    '480f44c2',
    '4c8d2c2d02000000',
    '41ff24c4',
    '488b0cc510203040',
    '488b0425f0ffffff',
    '0f2b07',
    '660f73f808',
    '660f72f002',
    '488d0500000000',
  ].join(''),
  'hex',
);

let warmed = false;

/**
 * Reads {@link WARM_CODE} 24 times, once per process, before a sweep (about 1 ms): V8 then has type
 * feedback for the reader's common forms, and part of the work it counts before it optimizes the reader
 * is done, so that the sweep runs unoptimized for less long. Under V8's default interrupt budget 40
 * rounds get the reader optimized; under the eightfold budget of `rea`'s commands about 300 would, more
 * than a small binary's whole sweep costs, so this does only a part.
 */
export function warmX86(): void {
  if (warmed) return;
  warmed = true;
  for (let round = 0; round < 24; round += 1) {
    for (let at = 0; at < WARM_CODE.length;) {
      const size = readX86(WARM_CODE, at, WARM_CODE.length, 0x40_1000 + at, true);
      at += size === 0 ? 1 : size;
    }
  }
}

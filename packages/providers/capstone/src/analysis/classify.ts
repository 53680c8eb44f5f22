/** Control-flow class of one instruction. */
export const Flow = {
  None: 0,
  Call: 1,
  Jump: 2,
  Conditional: 3,
  Return: 4,
  Stop: 5,
  IndirectCall: 6,
  IndirectJump: 7,
} as const;
/** A {@link Flow} value. */
export type Flow = (typeof Flow)[keyof typeof Flow];

/** How an instruction refers to an address other than its branch target. */
export const RefKind = {
  None: 0,
  /** A memory operand: the instruction reads or writes the address (RIP-relative, absolute, ADRP+LDR). */
  Memory: 1,
  /** The address itself is computed or loaded as a value (LEA, ADR, ADRP+ADD, immediate). */
  Value: 2,
} as const;
/** A {@link RefKind} value. */
export type RefKind = (typeof RefKind)[keyof typeof RefKind];

/** What the analysis needs from one instruction. `target`/`ref` are NaN when absent. */
export interface Semantics {
  flow: Flow;
  target: number;
  ref: number;
  refKind: RefKind;
}

const HEX = /^0x[0-9a-f]+$/;
const RIP = /\[rip ([+-]) 0x([0-9a-f]+)\]/;
const ABS = /(?<![a-z]s:)\[0x([0-9a-f]+)\]/;
const INDEXED = /\[(?:[a-z0-9]+\*[1248]) \+ 0x([0-9a-f]+)\]/;
const TRAILING_IMM = /(?:^|, )(0x[0-9a-f]+)$/;

function signed(text: string): number {
  return text.startsWith('-') ? -Number(text.slice(1)) : Number(text);
}

const NONE: Semantics = Object.freeze({ flow: Flow.None, target: Number.NaN, ref: Number.NaN, refKind: RefKind.None });
const RETURN: Semantics = Object.freeze({ ...NONE, flow: Flow.Return });
const STOP: Semantics = Object.freeze({ ...NONE, flow: Flow.Stop });
const INDIRECT_CALL: Semantics = Object.freeze({ ...NONE, flow: Flow.IndirectCall });
const INDIRECT_JUMP: Semantics = Object.freeze({ ...NONE, flow: Flow.IndirectJump });

/** The last word of a mnemonic: the instruction without its prefixes (`bnd jmp` -> `jmp`). */
export function lastWord(mnemonic: string): string {
  const space = mnemonic.lastIndexOf(' ');
  return space < 0 ? mnemonic : mnemonic.slice(space + 1);
}

function memoryRef(operands: string, next: number, bits: number): number {
  const rip = RIP.exec(operands);
  if (rip) return rip[1] === '+' ? next + Number.parseInt(rip[2]!, 16) : next - Number.parseInt(rip[2]!, 16);
  const abs = ABS.exec(operands);
  if (abs) return Number.parseInt(abs[1]!, 16);
  if (bits === 32 || !operands.includes('rip')) {
    const indexed = INDEXED.exec(operands);
    if (indexed) return Number.parseInt(indexed[1]!, 16);
  }
  return Number.NaN;
}

/** How {@link classifyX86} treats an x86 operation, decided by its name alone (see {@link x86Kind}). */
export const X86Kind = {
  /** Anything else: only a memory operand can refer to an address. */
  Other: 0,
  Call: 1,
  Jump: 2,
  /** Conditional jumps and loops. */
  Conditional: 3,
  Return: 4,
  Stop: 5,
  /** `mov`, `push`, `movabs`: an immediate may be an address. */
  Immediate: 6,
  /** `lea`: a memory operand's address is computed as a value. */
  Lea: 7,
} as const;

/** The {@link X86Kind} of an operation (a mnemonic without prefixes), matching {@link classifyX86}. */
export function x86Kind(op: string): number {
  if (op === 'call') return X86Kind.Call;
  if (op === 'jmp') return X86Kind.Jump;
  if (op.charCodeAt(0) === 106 /* j */ || op === 'loop' || op === 'loope' || op === 'loopne')
    return X86Kind.Conditional;
  if (op === 'ret' || op === 'retf' || op === 'iret' || op === 'iretd' || op === 'iretq' || op === 'sysret')
    return X86Kind.Return;
  if (op === 'hlt' || op === 'ud2' || op === 'int3') return X86Kind.Stop;
  if (op === 'mov' || op === 'push' || op === 'movabs') return X86Kind.Immediate;
  if (op === 'lea') return X86Kind.Lea;
  return X86Kind.Other;
}

/** Classifies an x86 or x86-64 instruction (Intel syntax, as Capstone prints it). */
export function classifyX86(
  mnemonic: string,
  operands: string,
  address: number,
  size: number,
  bits: number,
): Semantics {
  const op = lastWord(mnemonic);
  const next = address + size;
  if (op === 'call' || op === 'jmp') {
    if (HEX.test(operands))
      return {
        flow: op === 'call' ? Flow.Call : Flow.Jump,
        target: Number.parseInt(operands.slice(2), 16),
        ref: Number.NaN,
        refKind: RefKind.None,
      };
    const slot = operands.includes('[') ? memoryRef(operands, next, bits) : Number.NaN;
    return {
      flow: op === 'call' ? Flow.IndirectCall : Flow.IndirectJump,
      target: Number.NaN,
      ref: slot,
      refKind: Number.isNaN(slot) ? RefKind.None : RefKind.Memory,
    };
  }
  if (op.charCodeAt(0) === 106 /* j */ || op === 'loop' || op === 'loope' || op === 'loopne') {
    if (HEX.test(operands))
      return {
        flow: Flow.Conditional,
        target: Number.parseInt(operands.slice(2), 16),
        ref: Number.NaN,
        refKind: RefKind.None,
      };
    return INDIRECT_JUMP;
  }
  if (op === 'ret' || op === 'retf' || op === 'iret' || op === 'iretd' || op === 'iretq' || op === 'sysret')
    return RETURN;
  if (op === 'hlt' || op === 'ud2' || op === 'int3') return STOP;
  if (operands.includes('[')) {
    const ref = memoryRef(operands, next, bits);
    if (!Number.isNaN(ref))
      return { flow: Flow.None, target: Number.NaN, ref, refKind: op === 'lea' ? RefKind.Value : RefKind.Memory };
    return NONE;
  }
  if (op === 'mov' || op === 'push' || op === 'movabs') {
    const imm = TRAILING_IMM.exec(operands);
    if (imm) {
      const value = Number.parseInt(imm[1]!.slice(2), 16);
      if (value >= 0x1000 && Number.isSafeInteger(value))
        return { flow: Flow.None, target: Number.NaN, ref: value, refKind: RefKind.Value };
    }
  }
  return NONE;
}

const A64_IMM = /#(0x[0-9a-f]+)$/;
const A64_LDST = /^([wxqdsbh]\d+|[wx]zr|sp), (?:[wxqdsbh]\d+, )?\[(x\d+|sp), #(-?0x[0-9a-f]+|-?\d+)\]/;
const A64_ADD = /^(x\d+|sp), (x\d+|sp), #(0x[0-9a-f]+|\d+)$/;
const A64_ADRP = /^(x\d+), #(0x[0-9a-f]+)$/;

/**
 * Per-block AArch64 state: the page each register holds after an ADRP, so that a following ADD or
 * load/store resolves to a full address.
 */
export class Arm64Pages {
  private readonly pages = new Map<string, number>();
  /** Forgets every register (at a block boundary). */
  reset(): void {
    this.pages.clear();
  }
  /** Classifies one AArch64 instruction, updating the ADRP state. */
  classify(mnemonic: string, operands: string): Semantics {
    const target = (): number => {
      const m = A64_IMM.exec(operands);
      return m ? Number.parseInt(m[1]!.slice(2), 16) : Number.NaN;
    };
    switch (mnemonic) {
      case 'bl':
        return { flow: Flow.Call, target: target(), ref: Number.NaN, refKind: RefKind.None };
      case 'b':
        return { flow: Flow.Jump, target: target(), ref: Number.NaN, refKind: RefKind.None };
      case 'cbz':
      case 'cbnz':
      case 'tbz':
      case 'tbnz':
        return { flow: Flow.Conditional, target: target(), ref: Number.NaN, refKind: RefKind.None };
      case 'blr':
      case 'blraa':
      case 'blraaz':
      case 'blrab':
      case 'blrabz':
        return INDIRECT_CALL;
      case 'br':
      case 'braa':
      case 'braaz':
      case 'brab':
      case 'brabz':
        return INDIRECT_JUMP;
      case 'ret':
      case 'retaa':
      case 'retab':
      case 'eret':
        return RETURN;
      case 'brk':
      case 'udf':
      case 'hlt':
        return STOP;
      case 'adrp': {
        const m = A64_ADRP.exec(operands);
        if (m) this.pages.set(m[1]!, Number.parseInt(m[2]!.slice(2), 16));
        return NONE;
      }
      case 'adr': {
        const t = target();
        return Number.isNaN(t) ? NONE : { flow: Flow.None, target: Number.NaN, ref: t, refKind: RefKind.Value };
      }
      default:
        break;
    }
    if (mnemonic.startsWith('b.'))
      return { flow: Flow.Conditional, target: target(), ref: Number.NaN, refKind: RefKind.None };
    if (mnemonic === 'add') {
      const m = A64_ADD.exec(operands);
      const page = m ? this.pages.get(m[2]!) : undefined;
      if (m) this.pages.delete(m[1]!);
      if (m && page !== undefined)
        return { flow: Flow.None, target: Number.NaN, ref: page + Number(m[3]!), refKind: RefKind.Value };
      return NONE;
    }
    if (mnemonic.startsWith('ld') || mnemonic.startsWith('st')) {
      const m = A64_LDST.exec(operands);
      if (m) {
        const page = this.pages.get(m[2]!);
        if (mnemonic.startsWith('ld')) this.pages.delete(m[1]!);
        if (page !== undefined)
          return { flow: Flow.None, target: Number.NaN, ref: page + signed(m[3]!), refKind: RefKind.Memory };
        return NONE;
      }
      if (mnemonic === 'ldr' || mnemonic === 'ldrsw') {
        const t = target();
        if (!Number.isNaN(t) && !operands.includes('['))
          return { flow: Flow.None, target: Number.NaN, ref: t, refKind: RefKind.Memory };
      }
    }
    const comma = operands.indexOf(',');
    if (comma > 0) this.pages.delete(operands.slice(0, comma));
    return NONE;
  }
}

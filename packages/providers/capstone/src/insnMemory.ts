/**
 * Reading decoded cs_insn records straight from the engine's linear memory: the cursor handed to
 * instruction sinks, and byte-level readers of the operand text that build no strings.
 */

/**
 * A view of the instruction being delivered to an {@link InstructionSink}. It is one reused object:
 * read it inside the sink, never keep it. Text is built only when asked for.
 */
export interface InstructionCursor {
  /**
   * Capstone's instruction id. On x86 one id prints as one mnemonic (prefixes aside); on AArch64
   * conditional branches share the id of `b`, so AArch64 is classified by its mnemonic text.
   */
  readonly id: number;
  /** The mnemonic as Capstone prints it (Intel syntax on x86), prefixes included. */
  mnemonic(): string;
  /** The operand text as Capstone prints it. */
  operands(): string;
  /** Whether the operand text holds '[', '#' or "0x" (a memory operand or a literal). */
  hasAddressSyntax(): boolean;
  /** The value when the whole operand text is one `0x` hex literal (a direct branch target), else NaN. */
  hexOperand(): number;
  /**
   * Whether some memory operand (`[...]`) can name a fixed address: it starts with `rip`, with a
   * `0x` literal, or with a scaled index (`[rax*8 + 0x...]`). False for register-based operands.
   */
  mayAddressMemory(): boolean;
  /**
   * The signed displacement of the first `[rip + 0x…]` / `[rip - 0x…]` operand (x86-64), or NaN when
   * the operand text holds none.
   */
  ripDisplacement(): number;
  /** The value of a final `0x…` operand (the whole text, or after ", "), or NaN. */
  trailingHex(): number;
  /** Whether the operand text holds a memory operand (`[`). */
  hasMemoryOperand(): boolean;
}

/** Size of Capstone's cs_insn in this build, and its field offsets. */
export const INSN_SIZE = 240;
/** Offset of cs_insn's 16-bit `size` field. */
export const INSN_SIZE_FIELD = 16;
const INSN_MNEMONIC = 42;
const INSN_OPERANDS = 74;

/** The engine's linear memory (the WebAssembly global is typed locally: no DOM or WebAssembly lib). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** Direct views of the engine's linear memory, refreshed whenever the memory grows. */
export class Heap implements InsnBytes {
  private buffer: ArrayBuffer | null = null;
  u8 = new Uint8Array(0);
  private text = Buffer.alloc(0);

  constructor(private readonly memory: WasmMemory) {}

  refresh(): void {
    const buffer = this.memory.buffer;
    if (buffer === this.buffer) return;
    this.buffer = buffer;
    this.u8 = new Uint8Array(buffer);
    this.text = Buffer.from(buffer);
  }

  u32(pointer: number): number {
    const b = this.u8;
    return (b[pointer]! | (b[pointer + 1]! << 8) | (b[pointer + 2]! << 16) | (b[pointer + 3]! << 24)) >>> 0;
  }

  /** Whether the NUL-terminated text at `pointer` holds '[', '#' or "0x" (a memory operand or a literal). */
  hasAddressSyntax(pointer: number, max: number): boolean {
    const b = this.u8;
    const limit = pointer + max;
    for (let i = pointer; i < limit; i += 1) {
      const c = b[i]!;
      if (c === 0) return false;
      if (c === 0x5b || c === 0x23 || (c === 0x78 && b[i - 1] === 0x30)) return true;
    }
    return false;
  }

  /** The value of NUL-terminated text that is exactly `0x<lowercase hex>`, else NaN. */
  hexLiteral(pointer: number, max: number): number {
    const b = this.u8;
    if (b[pointer] !== 0x30 || b[pointer + 1] !== 0x78 || b[pointer + 2] === 0) return Number.NaN;
    const limit = pointer + max;
    let value = 0;
    for (let i = pointer + 2; i < limit; i += 1) {
      const c = b[i]!;
      if (c === 0) return value;
      if (c >= 0x30 && c <= 0x39) value = value * 16 + (c - 0x30);
      else if (c >= 0x61 && c <= 0x66) value = value * 16 + (c - 0x57);
      else return Number.NaN;
    }
    return Number.NaN;
  }

  /** Whether a `[` in the NUL-terminated text opens `rip`, a `0x` literal or a scaled first term. */
  mayAddressMemory(pointer: number, max: number): boolean {
    const b = this.u8;
    const limit = pointer + max;
    for (let i = pointer; i < limit; i += 1) {
      const c = b[i]!;
      if (c === 0) return false;
      if (c !== 0x5b) continue;
      if (b[i + 1] === 0x72 && b[i + 2] === 0x69 && b[i + 3] === 0x70) return true;
      if (b[i + 1] === 0x30 && b[i + 2] === 0x78) return true;
      for (let j = i + 1; j < limit; j += 1) {
        const d = b[j]!;
        if (d === 0x2a) return true;
        if (d === 0x20 || d === 0x5d || d === 0) break;
      }
    }
    return false;
  }

  /** The signed displacement of the first `[rip + 0x<hex>]` or `[rip - 0x<hex>]` in the text, else NaN. */
  ripOffset(pointer: number, max: number): number {
    const b = this.u8;
    const limit = pointer + max;
    for (let i = pointer; i + 9 < limit; i += 1) {
      const c = b[i]!;
      if (c === 0) return Number.NaN;
      // "[rip " then '+' or '-', then " 0x"
      if (c !== 0x5b || b[i + 1] !== 0x72 || b[i + 2] !== 0x69 || b[i + 3] !== 0x70 || b[i + 4] !== 0x20) continue;
      const sign = b[i + 5];
      if ((sign !== 0x2b && sign !== 0x2d) || b[i + 6] !== 0x20 || b[i + 7] !== 0x30 || b[i + 8] !== 0x78) continue;
      let value = 0;
      let digits = 0;
      for (let j = i + 9; j < limit; j += 1) {
        const d = b[j]!;
        if (d === 0x5d && digits > 0) return sign === 0x2b ? value : -value;
        if (d >= 0x30 && d <= 0x39) value = value * 16 + (d - 0x30);
        else if (d >= 0x61 && d <= 0x66) value = value * 16 + (d - 0x57);
        else break;
        digits += 1;
      }
    }
    return Number.NaN;
  }

  /** The value of a final `0x<hex>` that is the whole text or follows ", ", else NaN. */
  trailingHex(pointer: number, max: number): number {
    const b = this.u8;
    const limit = pointer + max;
    let end = pointer;
    while (end < limit && b[end] !== 0) end += 1;
    let start = end;
    while (
      start > pointer &&
      ((b[start - 1]! >= 0x30 && b[start - 1]! <= 0x39) || (b[start - 1]! >= 0x61 && b[start - 1]! <= 0x66))
    )
      start -= 1;
    if (start === end || start - 2 < pointer || b[start - 1] !== 0x78 || b[start - 2] !== 0x30) return Number.NaN;
    const literal = start - 2;
    if (literal !== pointer && (literal - 2 < pointer || b[literal - 1] !== 0x20 || b[literal - 2] !== 0x2c))
      return Number.NaN;
    let value = 0;
    for (let i = start; i < end; i += 1) {
      const d = b[i]!;
      value = value * 16 + (d <= 0x39 ? d - 0x30 : d - 0x57);
    }
    return value;
  }

  /** Whether the NUL-terminated text holds `byte`. */
  has(pointer: number, max: number, byte: number): boolean {
    const b = this.u8;
    const limit = pointer + max;
    for (let i = pointer; i < limit; i += 1) {
      const c = b[i]!;
      if (c === byte) return true;
      if (c === 0) return false;
    }
    return false;
  }

  /** A NUL-terminated ASCII string of at most `max` bytes. */
  string(pointer: number, max: number): string {
    const b = this.u8;
    let end = pointer;
    const limit = pointer + max;
    while (end < limit && b[end] !== 0) end += 1;
    return this.text.toString('latin1', pointer, end);
  }
}

/** Bytes holding decoded cs_insn records, with latin1 text access. */
export interface InsnBytes {
  u8: Uint8Array;
  string(pointer: number, max: number): string;
  hasAddressSyntax(pointer: number, max: number): boolean;
  hexLiteral(pointer: number, max: number): number;
  mayAddressMemory(pointer: number, max: number): boolean;
  ripOffset(pointer: number, max: number): number;
  trailingHex(pointer: number, max: number): number;
  has(pointer: number, max: number, byte: number): boolean;
}

/** The one reused {@link InstructionCursor}: points at a cs_insn record in `bytes`. */
export class Cursor implements InstructionCursor {
  id = 0;
  base = 0;
  constructor(public bytes: InsnBytes) {}

  at(bytes: InsnBytes, base: number): void {
    this.bytes = bytes;
    this.base = base;
    const b = bytes.u8;
    this.id = (b[base]! | (b[base + 1]! << 8) | (b[base + 2]! << 16) | (b[base + 3]! << 24)) >>> 0;
  }
  mnemonic(): string {
    return this.bytes.string(this.base + INSN_MNEMONIC, 32);
  }
  operands(): string {
    return this.bytes.string(this.base + INSN_OPERANDS, 160);
  }
  hasAddressSyntax(): boolean {
    return this.bytes.hasAddressSyntax(this.base + INSN_OPERANDS, 160);
  }
  hexOperand(): number {
    return this.bytes.hexLiteral(this.base + INSN_OPERANDS, 160);
  }
  mayAddressMemory(): boolean {
    return this.bytes.mayAddressMemory(this.base + INSN_OPERANDS, 160);
  }
  ripDisplacement(): number {
    return this.bytes.ripOffset(this.base + INSN_OPERANDS, 160);
  }
  trailingHex(): number {
    return this.bytes.trailingHex(this.base + INSN_OPERANDS, 160);
  }
  hasMemoryOperand(): boolean {
    return this.bytes.has(this.base + INSN_OPERANDS, 160, 0x5b);
  }
}

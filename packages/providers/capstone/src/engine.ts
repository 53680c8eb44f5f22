/**
 * The only place the Capstone WebAssembly module is imported. Loading is lazy (dynamic import on the
 * first open), so importing the package costs nothing.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ReaError } from '@rea/evidence';

/** The instruction sets this engine decodes. */
export type EngineArchitecture = 'x86_64' | 'x86' | 'aarch64';

/** One decoded instruction. */
export interface DecodedInstruction {
  address: number;
  size: number;
  bytes: number[];
  mnemonic: string;
  operands: string;
}

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

/** Receives one decoded instruction; `index` is its byte offset in the decoded buffer. */
export type InstructionSink = (address: number, size: number, insn: InstructionCursor, index: number) => void;

/** A Capstone handle for one architecture. */
export interface Decoder {
  readonly architecture: EngineArchitecture;
  /**
   * Decodes from the start of `bytes` (at `address`) until the bytes end or an invalid instruction,
   * calling `sink` for each instruction without allocating instruction objects or text (the sink reads
   * what it needs through the cursor). Returns the number of bytes consumed.
   */
  scan(bytes: Uint8Array, address: number, sink: InstructionSink): number;
  /** Decodes like {@link Decoder.scan}, returning instruction rows. */
  decode(bytes: Uint8Array, address: number): DecodedInstruction[];
  close(): void;
}

interface RawCapstone {
  handle_ptr: number;
  close(): void;
}

type CallArgument = number | bigint;

interface RawModule {
  Capstone: new (arch: number, mode: number) => RawCapstone;
  ARCH_X86: number;
  ARCH_ARM64: number;
  MODE_32: number;
  MODE_64: number;
  MODE_ARM: number;
  version(): number;
  ccall(name: string, returns: string | null, types: string[], args: CallArgument[]): number;
  getValue(pointer: number, type: string): number;
  UTF8ToString(pointer: number): string;
  writeArrayToMemory(bytes: Uint8Array, pointer: number): void;
  _malloc(size: number): number;
  _free(pointer: number): void;
  /** The raw exports, when the build exposes them (called directly, without ccall's conversions). */
  _cs_disasm?: (handle: number, code: number, size: number, address: bigint, count: number, out: number) => number;
  _cs_free?: (insns: number, count: number) => void;
}

/** Size of Capstone's cs_insn in this build, and its field offsets. */
const INSN_SIZE = 240;
const INSN_SIZE_FIELD = 16;
const INSN_MNEMONIC = 42;
const INSN_OPERANDS = 74;

// The WebAssembly global, typed locally (the project's lib settings carry no DOM or WebAssembly types).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: object) => WasmInstance;
  Memory: abstract new (...args: never[]) => WasmMemory;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Direct views of the engine's linear memory, refreshed whenever the memory grows. */
class Heap implements InsnBytes {
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
interface InsnBytes {
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
class Cursor implements InstructionCursor {
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

/** A copy of `count` cs_insn records read through the module's accessors (when memory is not captured). */
function copiedRecords(cs: RawModule, pointer: number, count: number): InsnBytes {
  const u8 = new Uint8Array(count * INSN_SIZE);
  for (let i = 0; i < u8.length; i += 1) u8[i] = cs.getValue(pointer + i, 'i8') & 0xff;
  const copy = new Heap({ buffer: u8.buffer });
  copy.refresh();
  return copy;
}

interface LoadedEngine {
  module: RawModule;
  /** Null when the memory could not be captured; decoding then reads through the module's accessors. */
  heap: Heap | null;
}

let loading: Promise<LoadedEngine> | null = null;

const require = createRequire(import.meta.url);

/**
 * Compiles capstone.wasm ourselves so that its memory can be read directly (emscripten's
 * instantiateWasm hook). Started before the glue is evaluated, so compilation (off the main thread)
 * overlaps it.
 */
async function instantiateOptions(captured: { memory: WasmMemory | null }): Promise<object> {
  try {
    const wasm = join(dirname(require.resolve('@alexaltea/capstone-js')), 'capstone.wasm');
    const compiled = await Wasm.compile(readFileSync(wasm));
    return {
      instantiateWasm(imports: object, receive: (instance: WasmInstance, module: object) => void) {
        const instance = new Wasm.Instance(compiled, imports);
        captured.memory =
          (Object.values(instance.exports).find((e) => e instanceof Wasm.Memory) as WasmMemory | undefined) ?? null;
        receive(instance, compiled);
        return instance.exports;
      },
    };
  } catch {
    return {};
  }
}

/** Loads the WebAssembly module once per process. Throws `provider_unavailable` when it cannot load. */
export function loadEngine(): Promise<LoadedEngine> {
  loading ??= (async () => {
    try {
      const captured: { memory: WasmMemory | null } = { memory: null };
      const options = instantiateOptions(captured);
      // The glue is CommonJS: `require` skips the ESM loader's export scan of its 330 kB source.
      const factory = require('@alexaltea/capstone-js') as (options?: object) => Promise<RawModule>;
      const module = await factory(await options);
      return { module, heap: captured.memory ? new Heap(captured.memory) : null };
    } catch (error) {
      loading = null;
      throw new ReaError('provider_unavailable', 'The embedded Capstone WebAssembly engine failed to load.', {
        remediation:
          'Reinstall @rea/provider-capstone so that @alexaltea/capstone-js and its capstone.wasm are present.',
        details: { provider_id: 'capstone', reason: error instanceof Error ? error.message : String(error) },
      });
    }
  })();
  return loading;
}

/** The Capstone engine version reported by the loaded module, as "major.minor" (e.g. "5.0"). */
export async function engineVersion(): Promise<string> {
  const { module } = await loadEngine();
  const combined = Number(module.version());
  return `${combined >> 8}.${combined & 0xff}`;
}

/** Opens a decoder for one architecture (Intel syntax on x86). */
export async function openDecoder(architecture: EngineArchitecture): Promise<Decoder> {
  const { module: cs, heap } = await loadEngine();
  const [arch, mode] =
    architecture === 'x86_64'
      ? [cs.ARCH_X86, cs.MODE_64]
      : architecture === 'x86'
        ? [cs.ARCH_X86, cs.MODE_32]
        : [cs.ARCH_ARM64, cs.MODE_ARM];
  const raw = new cs.Capstone(arch, mode);
  const handle = cs.getValue(raw.handle_ptr, 'i32');
  const out = cs._malloc(4);
  let capacity = 0;
  let buffer = 0;
  let open = true;
  const cursor = new Cursor(heap ?? copiedRecords(cs, 0, 0));
  const disasm =
    cs._cs_disasm ??
    ((...args: [number, number, number, bigint, number, number]) =>
      cs.ccall('cs_disasm', 'number', ['number', 'pointer', 'number', 'number', 'number', 'pointer'], args));
  const free =
    cs._cs_free ?? ((insns: number, count: number) => cs.ccall('cs_free', null, ['number', 'number'], [insns, count]));
  const scan = (bytes: Uint8Array, address: number, sink: InstructionSink): number => {
    if (!open) throw new ReaError('internal', 'The Capstone decoder was used after close.');
    if (bytes.length === 0) return 0;
    if (bytes.length > capacity) {
      if (buffer) cs._free(buffer);
      capacity = Math.max(bytes.length, 0x10000);
      buffer = cs._malloc(capacity);
    }
    if (heap) {
      heap.refresh();
      heap.u8.set(bytes, buffer);
    } else cs.writeArrayToMemory(bytes, buffer);
    const count = disasm(handle, buffer, bytes.length, BigInt(address), 0, out);
    if (count === 0) return 0;
    let offset = 0;
    if (heap) heap.refresh();
    const insns = heap ? heap.u32(out) : cs.getValue(out, 'i32');
    try {
      const records = heap ?? copiedRecords(cs, insns, count);
      const first = heap ? insns : 0;
      const u8 = records.u8;
      for (let i = 0; i < count; i += 1) {
        const base = first + i * INSN_SIZE;
        const size = u8[base + INSN_SIZE_FIELD]! | (u8[base + INSN_SIZE_FIELD + 1]! << 8);
        cursor.at(records, base);
        sink(address + offset, size, cursor, offset);
        offset += size;
      }
    } finally {
      free(insns, count);
    }
    return offset;
  };
  return {
    architecture,
    scan,
    decode(bytes, address) {
      const rows: DecodedInstruction[] = [];
      scan(bytes, address, (a, size, insn, index) => {
        rows.push({
          address: a,
          size,
          bytes: Array.from(bytes.subarray(index, index + size)),
          mnemonic: insn.mnemonic(),
          operands: insn.operands(),
        });
      });
      return rows;
    },
    close() {
      if (!open) return;
      open = false;
      if (buffer) cs._free(buffer);
      cs._free(out);
      raw.close();
    },
  };
}

/**
 * The only place the Capstone WebAssembly module is imported. Loading is lazy (dynamic import on the
 * first open), so importing the package costs nothing.
 */
import { readFile } from 'node:fs/promises';
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

/** Receives one decoded instruction; `index` is its byte offset in the decoded buffer. */
export type InstructionSink = (
  address: number,
  size: number,
  mnemonic: string,
  operands: string,
  index: number,
) => void;

/** Options for {@link Decoder.scan}. */
export interface ScanOptions {
  /**
   * Pass operands only when they can matter to control-flow and reference analysis: when they hold a
   * memory operand (`[`) or a numeric literal (`0x`, `#`); otherwise the sink receives "". Saves
   * building a string for most instructions.
   */
  sparseOperands?: boolean;
}

/** A Capstone handle for one architecture. */
export interface Decoder {
  readonly architecture: EngineArchitecture;
  /**
   * Decodes from the start of `bytes` (at `address`) until the bytes end or an invalid instruction,
   * calling `sink` for each instruction without allocating instruction objects. Returns the number of
   * bytes consumed.
   */
  scan(bytes: Uint8Array, address: number, sink: InstructionSink, options?: ScanOptions): number;
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
class Heap {
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

  /** A NUL-terminated ASCII string of at most `max` bytes. */
  string(pointer: number, max: number): string {
    const b = this.u8;
    let end = pointer;
    const limit = pointer + max;
    while (end < limit && b[end] !== 0) end += 1;
    return this.text.toString('latin1', pointer, end);
  }
}

interface LoadedEngine {
  module: RawModule;
  /** Null when the memory could not be captured; decoding then reads through the module's accessors. */
  heap: Heap | null;
}

let loading: Promise<LoadedEngine> | null = null;

/** Compiles capstone.wasm ourselves so that its memory can be read directly (emscripten's instantiateWasm hook). */
async function instantiateOptions(captured: { memory: WasmMemory | null }): Promise<object> {
  try {
    const require = createRequire(import.meta.url);
    const wasm = join(dirname(require.resolve('@alexaltea/capstone-js')), 'capstone.wasm');
    const compiled = await Wasm.compile(await readFile(wasm));
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
      const imported = (await import('@alexaltea/capstone-js')) as unknown as {
        default: (options?: object) => Promise<RawModule>;
      };
      const captured: { memory: WasmMemory | null } = { memory: null };
      const module = await imported.default(await instantiateOptions(captured));
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
  const scan = (bytes: Uint8Array, address: number, sink: InstructionSink, options: ScanOptions = {}): number => {
    const sparse = options.sparseOperands === true;
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
    const count = cs.ccall(
      'cs_disasm',
      'number',
      ['number', 'pointer', 'number', 'number', 'number', 'pointer'],
      [handle, buffer, bytes.length, BigInt(address), 0, out],
    );
    if (count === 0) return 0;
    let offset = 0;
    if (heap) heap.refresh();
    const insns = heap ? heap.u32(out) : cs.getValue(out, 'i32');
    try {
      for (let i = 0; i < count; i += 1) {
        const base = insns + i * INSN_SIZE;
        if (heap) {
          const size = heap.u8[base + INSN_SIZE_FIELD]! | (heap.u8[base + INSN_SIZE_FIELD + 1]! << 8);
          const operands =
            sparse && !heap.hasAddressSyntax(base + INSN_OPERANDS, 160) ? '' : heap.string(base + INSN_OPERANDS, 160);
          sink(address + offset, size, heap.string(base + INSN_MNEMONIC, 32), operands, offset);
          offset += size;
        } else {
          const size = cs.getValue(base + INSN_SIZE_FIELD, 'i16') & 0xffff;
          sink(
            address + offset,
            size,
            cs.UTF8ToString(base + INSN_MNEMONIC),
            cs.UTF8ToString(base + INSN_OPERANDS),
            offset,
          );
          offset += size;
        }
      }
    } finally {
      cs.ccall('cs_free', null, ['number', 'number'], [insns, count]);
    }
    return offset;
  };
  return {
    architecture,
    scan,
    decode(bytes, address) {
      const rows: DecodedInstruction[] = [];
      scan(bytes, address, (a, size, mnemonic, operands, index) => {
        rows.push({ address: a, size, bytes: Array.from(bytes.subarray(index, index + size)), mnemonic, operands });
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

/**
 * The only place the Capstone WebAssembly module is imported. Loading is lazy (dynamic import on the
 * first open), so importing the package costs nothing.
 */
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

/** A Capstone handle for one architecture. */
export interface Decoder {
  readonly architecture: EngineArchitecture;
  /**
   * Decodes from the start of `bytes` (at `address`) until the bytes end or an invalid instruction,
   * calling `sink` for each instruction without allocating instruction objects. Returns the number of
   * bytes consumed.
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
}

/** Size of Capstone's cs_insn in this build, and its field offsets. */
const INSN_SIZE = 240;
const INSN_SIZE_FIELD = 16;
const INSN_MNEMONIC = 42;
const INSN_OPERANDS = 74;

let loading: Promise<RawModule> | null = null;

/** Loads the WebAssembly module once per process. Throws `provider_unavailable` when it cannot load. */
export function loadEngine(): Promise<RawModule> {
  loading ??= (async () => {
    try {
      const imported = (await import('@alexaltea/capstone-js')) as unknown as {
        default: (options?: object) => Promise<RawModule>;
      };
      return await imported.default();
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
  const module = await loadEngine();
  const combined = Number(module.version());
  return `${combined >> 8}.${combined & 0xff}`;
}

/** Opens a decoder for one architecture (Intel syntax on x86). */
export async function openDecoder(architecture: EngineArchitecture): Promise<Decoder> {
  const cs = await loadEngine();
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
  const scan = (bytes: Uint8Array, address: number, sink: InstructionSink): number => {
    if (!open) throw new ReaError('internal', 'The Capstone decoder was used after close.');
    if (bytes.length === 0) return 0;
    if (bytes.length > capacity) {
      if (buffer) cs._free(buffer);
      capacity = Math.max(bytes.length, 0x10000);
      buffer = cs._malloc(capacity);
    }
    cs.writeArrayToMemory(bytes, buffer);
    const count = cs.ccall(
      'cs_disasm',
      'number',
      ['number', 'pointer', 'number', 'number', 'number', 'pointer'],
      [handle, buffer, bytes.length, BigInt(address), 0, out],
    );
    if (count === 0) return 0;
    const insns = cs.getValue(out, 'i32');
    let offset = 0;
    try {
      for (let i = 0; i < count; i += 1) {
        const base = insns + i * INSN_SIZE;
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

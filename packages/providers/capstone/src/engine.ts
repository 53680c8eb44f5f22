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

/** A Capstone handle for one architecture. */
export interface Decoder {
  readonly architecture: EngineArchitecture;
  /** Decodes from the start of `bytes` (at `address`) until the bytes end, an invalid instruction, or `count`. */
  decode(bytes: Uint8Array, address: number, count?: number): DecodedInstruction[];
  close(): void;
}

interface RawInstruction {
  address: bigint | number;
  size: number;
  bytes: number[];
  mnemonic: string;
  op_str: string;
}

interface RawCapstone {
  disasm(buffer: Uint8Array, address: number, max?: number): RawInstruction[];
  close(): void;
}

interface RawModule {
  Capstone: new (arch: number, mode: number) => RawCapstone;
  ARCH_X86: number;
  ARCH_ARM64: number;
  MODE_32: number;
  MODE_64: number;
  MODE_ARM: number;
  version(): number;
}

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
  const handle = new cs.Capstone(arch, mode);
  let open = true;
  return {
    architecture,
    decode(bytes, address, count = 0) {
      if (!open) throw new ReaError('internal', 'The Capstone decoder was used after close.');
      if (bytes.length === 0) return [];
      let raw: RawInstruction[];
      try {
        raw = handle.disasm(bytes, address, count);
      } catch {
        return [];
      }
      const out: DecodedInstruction[] = new Array(raw.length);
      for (let i = 0; i < raw.length; i += 1) {
        const r = raw[i]!;
        out[i] = { address: Number(r.address), size: r.size, bytes: r.bytes, mnemonic: r.mnemonic, operands: r.op_str };
      }
      return out;
    },
    close() {
      if (!open) return;
      open = false;
      handle.close();
    },
  };
}

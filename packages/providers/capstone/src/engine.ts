/**
 * The only place the Capstone WebAssembly module is loaded. Loading is lazy (on the first decode that
 * needs Capstone), so importing the package or probing it costs nothing.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { ReaError } from '@rea/evidence';
import { packageFile } from '@rea/provider-kit';
import { Cursor, Heap, INSN_SIZE, INSN_SIZE_FIELD } from './insnMemory.js';
import { GLUE_PREFIX, GLUE_SUFFIX, prepareOffThread } from './engineWorker.js';
import type { InsnBytes, InstructionCursor, WasmMemory } from './insnMemory.js';

export type { InstructionCursor } from './insnMemory.js';

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
export type InstructionSink = (address: number, size: number, insn: InstructionCursor, index: number) => void;

/** A Capstone handle for one architecture. */
export interface Decoder {
  readonly architecture: EngineArchitecture;
  /**
   * Decodes from the start of `bytes` (at `address`) until the bytes end or an invalid instruction,
   * calling `sink` for each instruction without allocating instruction objects or text (the sink reads
   * what it needs through the cursor). With `count`, stops after that many instructions. Returns the
   * number of bytes consumed.
   */
  scan(bytes: Uint8Array, address: number, sink: InstructionSink, count?: number): number;
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

// The WebAssembly global, typed locally (the project's lib settings carry no DOM or WebAssembly types).
interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<WasmInstance>;
  Memory: abstract new (...args: never[]) => WasmMemory;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

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

let ownRequire: NodeJS.Require | null = null;

/**
 * A require that resolves from this package's own directory, found by name (provider-kit's packageFile): the
 * same whether this module runs from the installed package or from inside a bundle of an application
 * that depends on it. Looked up on first use, so a failed lookup is an engine error, not an import one.
 */
function packageRequire(): NodeJS.Require {
  if (ownRequire === null) {
    const manifest = packageFile(import.meta.url, '@rea/provider-capstone', 'package.json');
    if (manifest === null) throw new Error(`@rea/provider-capstone cannot be found from ${import.meta.url}`);
    ownRequire = createRequire(manifest);
  }
  return ownRequire;
}

/** What the instantiation hook hands back: the module's memory, and the instantiation under way. */
interface Captured {
  memory: WasmMemory | null;
  /** Called when instantiating fails: the glue would otherwise wait for the hook's callback forever. */
  fail: (error: unknown) => void;
}

/**
 * Instantiates capstone.wasm ourselves so that its memory can be read directly (emscripten's
 * instantiateWasm hook): the module compiled on the worker thread (`prepared`), else the file read and
 * compiled here. The steps go through promises with a turn of the event loop between them (emscripten
 * waits for the hook's callback), so requests, timers and cancellation are served while the engine
 * loads.
 */
async function instantiateOptions(captured: Captured, prepared: object | null): Promise<object> {
  try {
    const wasm = join(dirname(packageRequire().resolve('@alexaltea/capstone-js')), 'capstone.wasm');
    const compiled = prepared ?? (await Wasm.compile(await readFile(wasm)));
    await nextTurn();
    return {
      instantiateWasm(imports: object, receive: (instance: WasmInstance, module: object) => void) {
        void (async () => {
          await nextTurn();
          const instance = await Wasm.instantiate(compiled, imports);
          await nextTurn();
          captured.memory =
            (Object.values(instance.exports).find((e) => e instanceof Wasm.Memory) as WasmMemory | undefined) ?? null;
          receive(instance, compiled);
        })().catch(captured.fail);
        // An empty object tells the glue that the instance comes later, through `receive`.
        return {};
      },
    };
  } catch {
    return {};
  }
}

/**
 * Checks, without loading anything, that the engine is installed: the glue resolves and capstone.wasm
 * is a WebAssembly binary. Throws `provider_unavailable` otherwise. This is what a probe asks; the
 * module itself is loaded on first use.
 */
export function engineFiles(): { glue: string; wasm: string } {
  try {
    const glue = packageRequire().resolve('@alexaltea/capstone-js');
    const wasm = join(dirname(glue), 'capstone.wasm');
    const head = Buffer.alloc(8);
    const fd = openSync(wasm, 'r');
    try {
      readSync(fd, head, 0, 8, 0);
    } finally {
      closeSync(fd);
    }
    if (head.readUInt32BE(0) !== 0x0061736d) throw new Error(`${wasm} is not a WebAssembly binary`);
    return { glue, wasm };
  } catch (error) {
    throw new ReaError('provider_unavailable', 'The embedded Capstone WebAssembly engine is not installed.', {
      remediation: 'Reinstall @rea/provider-capstone so that @alexaltea/capstone-js and its capstone.wasm are present.',
      details: { provider_id: 'capstone', reason: error instanceof Error ? error.message : String(error) },
    });
  }
}

type Factory = (options?: object) => Promise<RawModule>;

/**
 * The glue's factory, loaded as `require` would load it (it is CommonJS: no ESM export scan of its
 * 330 kB source) but in steps with a turn of the event loop between them: the file is read through a
 * promise, then compiled (from the worker's code cache when there is one, which holds the factory
 * compiled too), then evaluated, instead of one synchronous `require` doing all three.
 */
async function loadGlue(cache: Buffer | null): Promise<Factory> {
  const path = packageRequire().resolve('@alexaltea/capstone-js');
  const source = await readFile(path, 'utf8');
  await nextTurn();
  const script = new Script(GLUE_PREFIX + source + GLUE_SUFFIX, {
    filename: path,
    ...(cache ? { cachedData: cache } : {}),
  });
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  await nextTurn();
  const module = { exports: {} as unknown };
  body.call(module.exports, module.exports, createRequire(path), module, path, dirname(path));
  return module.exports as Factory;
}

/** Loads the WebAssembly module once per process. Throws `provider_unavailable` when it cannot load. */
export function loadEngine(): Promise<LoadedEngine> {
  loading ??= (async () => {
    try {
      let fail: (error: unknown) => void = () => undefined;
      const failed = new Promise<never>((_, reject) => (fail = reject));
      const captured: Captured = { memory: null, fail };
      // The compilations that would hold this thread run on a worker; without one, they run here.
      const { glue, wasm } = engineFiles();
      const prepared = await prepareOffThread(wasm, glue).catch(() => null);
      const options = instantiateOptions(captured, prepared?.module ?? null);
      const factory = await loadGlue(prepared?.cache ?? null);
      const resolved = await options;
      await nextTurn();
      // A failed instantiation never calls the glue back: its rejection ends the load instead.
      const module = await Promise.race([factory(resolved), failed]);
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

/**
 * The Capstone version this package ships (`@alexaltea/capstone-js` is pinned), as the loaded module
 * reports it; a test holds the two equal. Known without loading the engine.
 */
export const CAPSTONE_ENGINE_VERSION = '5.0';

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
  const scan = (bytes: Uint8Array, address: number, sink: InstructionSink, limit = 0): number => {
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
    const count = disasm(handle, buffer, bytes.length, BigInt(address), limit, out);
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

/**
 * A decoder opened on first use: analysis that never needs Capstone (x86-64 discovery whose every
 * instruction the fast reader measures) never loads the WebAssembly engine.
 */
export interface DecoderSource {
  readonly architecture: EngineArchitecture;
  /** The decoder, when it has been opened. */
  readonly current: Decoder | null;
  /** Opens the decoder (loading the engine once per process) or returns the open one. */
  get(): Promise<Decoder>;
  close(): void;
}

/** A {@link DecoderSource} for one architecture. */
export function decoderSource(architecture: EngineArchitecture): DecoderSource {
  let current: Decoder | null = null;
  let opening: Promise<Decoder> | null = null;
  let closed = false;
  return {
    architecture,
    get current() {
      return current;
    },
    get() {
      if (closed) return Promise.reject(new ReaError('internal', 'The Capstone decoder was used after close.'));
      opening ??= openDecoder(architecture).then(
        (decoder) => {
          if (closed) {
            decoder.close();
            throw new ReaError('internal', 'The Capstone decoder was used after close.');
          }
          current = decoder;
          return decoder;
        },
        (error: unknown) => {
          opening = null;
          throw error;
        },
      );
      return opening;
    },
    close() {
      closed = true;
      current?.close();
      current = null;
    },
  };
}

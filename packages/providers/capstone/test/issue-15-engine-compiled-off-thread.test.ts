/*
 * The parts of loading the Capstone engine that cannot be split into slices run on a worker thread:
 * capstone.wasm is compiled there (this thread only instantiates the module it is handed), and the
 * emscripten glue, whose 300 kB factory is compiled whole when first called, is evaluated here from
 * the code cache the worker made with the factory compiled. Seen on this thread: no WebAssembly
 * compilation, and the glue's script built from a cache V8 accepted; the engine still decodes. The
 * engine is loaded once per process, and jest gives this file its own module registry, so the load
 * seen here is a first one.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Script } from 'node:vm';
import { engineVersion, openDecoder } from '../src/engine.js';

interface WasmGlobal {
  compile(bytes: Uint8Array): Promise<object>;
  compileStreaming?: (source: unknown) => Promise<object>;
  Module: new (bytes: Uint8Array) => object;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;

describe('issue 15: the Capstone engine is compiled off the main thread', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('should compile neither capstone.wasm nor the glue factory on this thread, and decode', async () => {
    const compiled: string[] = [];
    const compile = wasm.compile.bind(wasm);
    jest.spyOn(wasm, 'compile').mockImplementation((bytes: Uint8Array) => {
      compiled.push('compile');
      return compile(bytes);
    });
    const NativeModule = wasm.Module;
    const moduleSpy = jest.spyOn(wasm, 'Module').mockImplementation(function (bytes: Uint8Array) {
      compiled.push('Module');
      return new NativeModule(bytes);
    } as unknown as () => object);
    const scripts: Script[] = [];
    const run = Script.prototype.runInThisContext;
    jest.spyOn(Script.prototype, 'runInThisContext').mockImplementation(function (this: Script, ...args) {
      scripts.push(this);
      return run.apply(this, args);
    });
    expect(await engineVersion()).toBe('5.0');
    moduleSpy.mockRestore();
    expect(compiled).toEqual([]);
    // The glue was evaluated from a code cache, accepted (a rejected one would have been compiled here).
    expect(scripts.map((s) => s.cachedDataRejected)).toContain(false);
    // `mov eax, 1; ret`, decoded by the engine loaded this way.
    const decoder = await openDecoder('x86_64');
    try {
      const rows = decoder.decode(Uint8Array.from([0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3]), 0x1000);
      expect(rows.map((r) => [r.address, r.mnemonic, r.operands])).toEqual([
        [0x1000, 'mov', 'eax, 1'],
        [0x1005, 'ret', ''],
      ]);
    } finally {
      decoder.close();
    }
  }, 120_000);
});

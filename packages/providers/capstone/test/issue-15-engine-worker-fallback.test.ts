/*
 * When no worker thread can run, the Capstone engine is compiled on this thread as before (the
 * compilations that would have run on the worker), and it decodes. The worker module is replaced by
 * one whose workers cannot start; jest gives this file its own module registry, so the load is a
 * first one.
 */
import { describe, expect, it, jest } from '@jest/globals';
import * as workerThreads from 'node:worker_threads';

jest.unstable_mockModule('node:worker_threads', () => ({
  ...workerThreads,
  default: workerThreads,
  Worker: class {
    constructor() {
      throw new Error('worker threads are unavailable here');
    }
  },
}));
const { engineVersion, openDecoder } = await import('../src/engine.js');

interface WasmGlobal {
  compile(bytes: Uint8Array): Promise<object>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;

describe('issue 15: the Capstone engine loads on this thread when no worker can run', () => {
  it('should compile the engine here and decode', async () => {
    const compile = wasm.compile.bind(wasm);
    let compiled = 0;
    jest.spyOn(wasm, 'compile').mockImplementation((bytes: Uint8Array) => {
      compiled += 1;
      return compile(bytes);
    });
    try {
      expect(await engineVersion()).toBe('5.0');
    } finally {
      jest.restoreAllMocks();
    }
    expect(compiled).toBe(1);
    const decoder = await openDecoder('x86_64');
    try {
      const rows = decoder.decode(Uint8Array.from([0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3]), 0x1000);
      expect(rows.map((r) => [r.mnemonic, r.operands])).toEqual([
        ['mov', 'eax, 1'],
        ['ret', ''],
      ]);
    } finally {
      decoder.close();
    }
  }, 120_000);
});

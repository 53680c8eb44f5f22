/*
 * Loading the Capstone WebAssembly engine does not hold the event loop from start to end: the file is
 * read, compiled and instantiated through promises, with turns of the event loop between the steps, so
 * other queued work runs while the engine loads (here: while it is being instantiated). The engine is
 * loaded once per process, and jest gives this file its own module registry, so the load measured here
 * is a first one.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { turnProbe } from '@rea/test-helpers';
import { engineVersion, openDecoder } from '../src/engine.js';

interface WasmGlobal {
  instantiate(module: object, imports: object): Promise<{ exports: Record<string, unknown> }>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;

describe('issue 15: the Capstone engine loads with turns of the event loop', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('should let queued work run while the engine is instantiated, then decode', async () => {
    const original = wasm.instantiate.bind(wasm);
    const seen: Array<{ turnsAtStart: number; ranMeanwhile: () => boolean }> = [];
    const probe = turnProbe();
    jest.spyOn(wasm, 'instantiate').mockImplementation((module: object, imports: object) => {
      // Work queued when the instantiation starts: it must run before the engine is ready.
      let ran = false;
      setImmediate(() => (ran = true));
      seen.push({ turnsAtStart: probe.turns(), ranMeanwhile: () => ran });
      return original(module, imports);
    });
    let ready: { turns: number; queuedWorkRan: boolean };
    try {
      const version = await engineVersion();
      ready = { turns: probe.turns(), queuedWorkRan: seen[0]?.ranMeanwhile() ?? false };
      expect(version).toBe('5.0');
    } finally {
      probe.stop();
    }
    expect(seen).toHaveLength(1);
    expect(ready.queuedWorkRan).toBe(true);
    expect(ready.turns).toBeGreaterThan(seen[0]!.turnsAtStart);
    // The engine instantiated this way decodes: `mov eax, 1; ret`.
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

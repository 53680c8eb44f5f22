/*
 * The Capstone engine's JavaScript glue (330 kB) is not loaded by one synchronous `require` (read,
 * compile and evaluate at once): it is read through a promise, compiled, then evaluated, with turns of
 * the event loop between the steps. The read, the compile and the evaluation are observed through the
 * modules that do them; jest gives this file its own module registry, so the load is a first one.
 */
import { describe, expect, it, jest } from '@jest/globals';
import * as fsPromises from 'node:fs/promises';
import * as vm from 'node:vm';

/** The turn count when each step of loading the glue happened. */
const steps: Record<'read' | 'compiled' | 'evaluated', number[]> = { read: [], compiled: [], evaluated: [] };
let turns = 0;

jest.unstable_mockModule('node:fs/promises', () => ({
  ...fsPromises,
  default: fsPromises,
  readFile: async (...args: Parameters<typeof fsPromises.readFile>) => {
    const out = await fsPromises.readFile(...args);
    if (String(args[0]).endsWith('capstone.js')) steps.read.push(turns);
    return out;
  },
}));
jest.unstable_mockModule('node:vm', () => ({
  ...vm,
  default: vm,
  Script: class extends vm.Script {
    private readonly glue: boolean;
    constructor(...args: ConstructorParameters<typeof vm.Script>) {
      super(...args);
      const options = args[1];
      this.glue = typeof options === 'object' && String(options.filename).endsWith('capstone.js');
      if (this.glue) steps.compiled.push(turns);
    }
    override runInThisContext(...args: Parameters<vm.Script['runInThisContext']>): unknown {
      const body = super.runInThisContext(...args) as (...rest: unknown[]) => unknown;
      if (!this.glue) return body;
      return function (this: unknown, ...rest: unknown[]) {
        steps.evaluated.push(turns);
        return body.apply(this, rest);
      };
    }
  },
}));
const { engineVersion, openDecoder } = await import('../src/engine.js');

describe('issue 15: the engine glue is read, compiled and evaluated in separate turns', () => {
  it('should turn the event loop between reading, compiling and evaluating the glue, then decode', async () => {
    let running = true;
    const tick = (): void => {
      if (!running) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    try {
      expect(await engineVersion()).toBe('5.0');
    } finally {
      running = false;
    }
    expect(steps.read).toHaveLength(1);
    expect(steps.compiled).toHaveLength(1);
    expect(steps.evaluated).toHaveLength(1);
    expect(steps.compiled[0]!).toBeGreaterThan(steps.read[0]!);
    expect(steps.evaluated[0]!).toBeGreaterThan(steps.compiled[0]!);
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

// The stack-protector and FORTIFY_SOURCE hints of a layout are found in one pass over the symbols
// with a checkpoint every 1,024 symbols (a library may have hundreds of thousands), not in two
// uninterrupted passes: the same answers as the one-shot checks, for plain and `_`-prefixed names.
import { describe, expect, it } from '@jest/globals';
import { CHECK_EVERY, runToCompletion } from '../../src/layout/cooperative.js';
import { hasCanary, hasFortify, symbolHints } from '../../src/layout/symbolHints.js';
import type { LayoutSymbol } from '../../src/layout/types.js';

const symbol = (name: string): LayoutSymbol => ({
  name,
  address: 0x1000,
  size: 0,
  kind: 'function',
  binding: 'global',
  defined: false,
  source: 'symtab',
});

const filler = (n: number, prefix = ''): LayoutSymbol[] =>
  Array.from({ length: n }, (_, i) => symbol(`${prefix}${i % 3 === 0 ? '__x' : 'f'}${i}${i % 5 === 0 ? '_chk' : ''}`));

/** Runs the pass, counting its checkpoints. */
function counted(
  symbols: LayoutSymbol[],
  prefix?: string,
): { hints: { canary: boolean; fortify: boolean }; checkpoints: number } {
  const work = symbolHints(symbols, prefix);
  let checkpoints = 0;
  for (;;) {
    const step = work.next();
    if (step.done) return { hints: step.value, checkpoints };
    checkpoints += 1;
  }
}

describe('issue 15: symbol hints are found with checkpoints', () => {
  it.each([
    ['no hint', []],
    ['a canary', ['__stack_chk_fail']],
    ['a guard and a checked call', ['__stack_chk_guard', '__memcpy_chk']],
    ['a checked call only', ['__printf_chk']],
    ['names that only look alike', ['__stack_chk_fail_x', '__Memcpy_chk', 'memcpy_chk', '__chk']],
    ['a canary named like a checked call', ['__stack_chk_fail_local']],
  ])('should give what the one-shot checks give with %s', (_, names) => {
    for (const prefix of ['', '_']) {
      for (const at of [0, 700, 5000]) {
        const symbols = filler(6000, prefix);
        symbols.splice(at, 0, ...names.map((n) => symbol(`${prefix}${n}`)));
        const { hints } = counted(symbols, prefix);
        expect(hints).toEqual({ canary: hasCanary(symbols, prefix), fortify: hasFortify(symbols, prefix) });
        expect(runToCompletion(symbolHints(symbols, prefix), undefined)).toEqual(hints);
      }
    }
  });

  it('should reach a checkpoint every 1,024 symbols while it looks', () => {
    const symbols = Array.from({ length: 100_000 }, (_, i) => symbol(`__f${i}`));
    const { hints, checkpoints } = counted(symbols);
    expect(hints).toEqual({ canary: false, fortify: false });
    expect(checkpoints).toBe(Math.floor(symbols.length / CHECK_EVERY));
  });
});

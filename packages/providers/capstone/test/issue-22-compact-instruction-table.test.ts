/*
 * The instruction table is what an open keeps per instruction, so it sets how peak memory grows with
 * the size of a binary. Only about a third of instructions have a branch target or a referenced
 * address: those values are stored densely and found through a bitmap, instead of one double per
 * instruction. This holds the round trip exact (targets and references at every bit position of the
 * bitmap's words, across a growth of the columns, values above 2^32 and values naming nothing) and
 * the table of a real program under 11 bytes per instruction (it took 15). The modules are internal,
 * so they are imported from the package source.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseBinaryLayout } from '@rea/artifact';
import { decoderSource } from '../src/engine.js';
import { Flow, RefKind, instructionAt, sweep } from '../src/analysis/sweep.js';
import { Columns } from '../src/analysis/table.js';

describe('issue 22: the instruction table stores targets and references only where they exist', () => {
  it('reads back every target, reference and reference kind exactly as pushed', () => {
    // Capacity 8: the columns grow several times while 700 instructions are pushed.
    const columns = new Columns(8, false);
    const expected: Array<{ flow: number; target: number; ref: number; refKind: number }> = [];
    for (let i = 0; i < 700; i += 1) {
      const address = 0x1_0000_0000 + i * 4;
      let row: { flow: number; target: number; ref: number; refKind: number };
      if (i % 7 === 0) row = { flow: Flow.Call, target: 0x2_0000_0000 + i, ref: Number.NaN, refKind: RefKind.None };
      else if (i % 5 === 0) row = { flow: Flow.None, target: Number.NaN, ref: 0x4000 + i * 3, refKind: RefKind.Memory };
      else if (i % 11 === 0) row = { flow: Flow.None, target: Number.NaN, ref: 0x1234 + i, refKind: RefKind.Value };
      else if (i % 13 === 0) row = { flow: Flow.Conditional, target: -5, ref: Number.NaN, refKind: RefKind.None };
      else if (i >= 320 && i < 352)
        row = { flow: Flow.Jump, target: 0x9000 + i, ref: Number.NaN, refKind: RefKind.None };
      else row = { flow: Flow.None, target: Number.NaN, ref: Number.NaN, refKind: RefKind.None };
      columns.push(address, 4, row.flow, row.target, row.ref, row.refKind);
      expected.push(row);
    }
    const table = columns.table(0);
    expect(table.count).toBe(700);
    for (let i = 0; i < 700; i += 1) {
      const want = expected[i]!;
      // A target below zero names nothing: recorded as NaN.
      const target = want.target >= 0 ? want.target : Number.NaN;
      expect([i, table.addressAt(i), table.flowAt(i), table.target(i), table.ref(i), table.refKindAt(i)]).toEqual([
        i,
        0x1_0000_0000 + i * 4,
        want.flow,
        target,
        want.ref,
        want.refKind,
      ]);
    }
  });

  it('reads back every address and finds each by binary search, across gaps, section starts and far jumps', () => {
    // Gaps of every size the sweep leaves (none, skipped bytes, the space between sections), at every
    // position in a block of 16, in a narrow and a wide column; addresses that do not ascend are kept too.
    for (const narrow of [true, false]) {
      const columns = new Columns(8, narrow);
      const addresses: number[] = [];
      let address = narrow ? 0x40_0000 : 0x7_0000_0000;
      let seed = 7;
      const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
      for (let i = 0; i < 5000; i += 1) {
        const r = random();
        const size = 1 + Math.floor(random() * 15);
        addresses.push(address);
        columns.push(address, size, Flow.None, Number.NaN, Number.NaN, RefKind.None);
        const gap =
          r < 0.9 ? 0 : r < 0.95 ? Math.floor(random() * 40) : r < 0.99 ? 240 + Math.floor(random() * 30) : 0x1_0000;
        address += size + gap;
      }
      const table = columns.table(0);
      expect(Array.from({ length: table.count }, (_, i) => table.addressAt(i))).toEqual(addresses);
      for (let i = 0; i < addresses.length; i += 37) {
        expect(instructionAt(table, addresses[i]!)).toBe(i);
        expect(instructionAt(table, addresses[i]! + 0.5)).toBe(-1);
        expect(table.lowerBound(addresses[i]! - 1)).toBe(i > 0 && addresses[i - 1] === addresses[i]! - 1 ? i - 1 : i);
      }
      expect(table.lowerBound(addresses.at(-1)! + 1)).toBe(addresses.length);
      expect(table.lowerBound(0)).toBe(0);
    }
    // An address below its block's first (a table whose addresses do not ascend) reads back as pushed.
    const columns = new Columns(8, true);
    const descending = [0x9000, 0x8000, 0x8004, 0x7000, 0x10_0000, 0x10_0001];
    for (const a of descending) columns.push(a, 1, Flow.None, Number.NaN, Number.NaN, RefKind.None);
    const table = columns.table(0);
    expect(Array.from({ length: table.count }, (_, i) => table.addressAt(i))).toEqual(descending);
  });

  it('keeps the table of a system program under 6 bytes per instruction', async () => {
    const layout = parseBinaryLayout(readFileSync('/usr/bin/ls'));
    const source = decoderSource(layout.architecture as 'x86_64');
    try {
      const table = await sweep(layout, source, [], new AbortController().signal);
      expect(table.count).toBeGreaterThan(10_000);
      // Columns of 1 + 1 + 1 bytes (offset, size, flow with reference kind), block addresses, a bitmap and running counts, and 4 bytes per value.
      expect(table.byteLength / table.count).toBeLessThan(6);
    } finally {
      source.close();
    }
  });
});

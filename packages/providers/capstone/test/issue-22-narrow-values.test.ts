/*
 * In an image below 2^32 (most programs and libraries) the instruction table keeps branch targets and
 * referenced addresses as 32-bit values; a value that does not fit (a 64-bit constant an instruction
 * loads) is kept apart and reads back exactly. This holds the round trip (values at, around and far
 * above 2^32 among ordinary ones, across growth of the columns) and the table of a real program under
 * 9 bytes per instruction (with 8-byte values it took 9.5 to 10). The modules are internal, so they
 * are imported from the package source.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseBinaryLayout } from '@rea/artifact';
import { decoderSource } from '../src/engine.js';
import { Flow, RefKind, sweep } from '../src/analysis/sweep.js';
import { Columns } from '../src/analysis/table.js';

describe('issue 22: 32-bit targets and references in an image below 2^32', () => {
  it('reads back every value exactly, including those that do not fit 32 bits', () => {
    const columns = new Columns(8, true);
    const special = [0xffff_fffe, 0xffff_ffff, 0x1_0000_0000, 0x8080_8080_8080, Number.MAX_SAFE_INTEGER, 0, 0x1000];
    const expected: number[] = [];
    for (let i = 0; i < 600; i += 1) {
      const value = i % 9 === 0 ? special[(i / 9) % special.length]! : i % 2 === 0 ? 0x40_0000 + i * 3 : Number.NaN;
      if (i % 4 === 0) columns.push(0x1000 + i * 4, 4, Flow.Call, value, Number.NaN, RefKind.None);
      else columns.push(0x1000 + i * 4, 4, Flow.None, Number.NaN, value, RefKind.Value);
      expected.push(value);
    }
    const table = columns.table(0);
    const read = expected.map((_, i) => (i % 4 === 0 ? table.target(i) : table.ref(i)));
    expect(read).toEqual(expected);
    expect(read.filter((v) => v >= 0xffff_ffff).length).toBeGreaterThan(20);
  });

  it('keeps the table of a system program under 9 bytes per instruction', async () => {
    const layout = parseBinaryLayout(readFileSync('/usr/bin/ls'));
    const source = decoderSource(layout.architecture as 'x86_64');
    try {
      const table = await sweep(layout, source, [], new AbortController().signal);
      expect(table.count).toBeGreaterThan(10_000);
      // Columns of 4 + 1 + 1 + 1 bytes, a bitmap and running counts, and 4 bytes per value.
      expect(table.byteLength / table.count).toBeLessThan(9);
    } finally {
      source.close();
    }
  });
});

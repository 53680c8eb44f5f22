/*
 * The value cursor walks the instructions of a table that have a value (a direct transfer's target or a
 * referenced address) in ascending order. Its end is stored through the same fields as each step (so
 * that V8 keeps the walk's optimized code at the end of a walk); this holds what a walk reads: every
 * such instruction once, in order, with the value the table gives it (values past 2^32 included), and an
 * end that stays an end (index -1, value NaN) however often it is asked again. The modules are
 * internal, so they are imported from the package source.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseBinaryLayout } from '@rea/artifact';
import { decoderSource } from '../src/engine.js';
import { Flow, RefKind, sweep } from '../src/analysis/sweep.js';
import { Columns } from '../src/analysis/table.js';
import type { InstructionTable } from '../src/analysis/table.js';

/** What a walk reads, [index, value] in order, then what five more calls after the end read. */
function walk(table: InstructionTable): { steps: Array<[number, number]>; after: Array<[boolean, number, number]> } {
  const cursor = table.valueCursor();
  const steps: Array<[number, number]> = [];
  while (cursor.next()) steps.push([cursor.index, cursor.value]);
  const after: Array<[boolean, number, number]> = [[false, cursor.index, cursor.value]];
  for (let i = 0; i < 5; i += 1) after.push([cursor.next(), cursor.index, cursor.value]);
  return { steps, after };
}

/** The same, read instruction by instruction through the table's own accessor. */
function expected(table: InstructionTable): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < table.count; i += 1) if (!Number.isNaN(table.value(i))) out.push([i, table.value(i)]);
  return out;
}

const ENDED = Array.from({ length: 6 }, () => [false, -1, Number.NaN]);

describe('issue 22: the value cursor', () => {
  it('visits every instruction with a value once, in order, and then stays at its end', () => {
    // 200 instructions across several 32-bit bitmap words: values on a pattern that leaves whole words
    // empty (indices 64-127), including values that do not fit 32 bits and a last instruction with one.
    const columns = new Columns(8, true);
    const values: number[] = [];
    for (let i = 0; i < 200; i += 1) {
      const value =
        i >= 64 && i < 128 ? Number.NaN : i % 3 === 0 ? 0x40_0000 + i : i % 7 === 0 ? 0x1_0000_0000 + i : Number.NaN;
      const last = i === 199 ? 0x50_0000 : value;
      columns.push(0x1000 + i * 4, 4, Flow.Jump, last, Number.NaN, RefKind.None);
      values.push(last);
    }
    const table = columns.table(0);
    const read = walk(table);
    const wanted = values.flatMap((v, i) => (Number.isNaN(v) ? [] : [[i, v] as [number, number]]));
    expect(read.steps).toEqual(wanted);
    expect(read.steps.some(([, v]) => v > 0xffff_ffff)).toBe(true);
    expect(read.steps.at(-1)).toEqual([199, 0x50_0000]);
    expect(read.after).toEqual(ENDED);
  });

  it('ends at once on a table with no values, or with no instructions', () => {
    const none = new Columns(8, true);
    for (let i = 0; i < 40; i += 1) none.push(0x1000 + i, 1, Flow.None, Number.NaN, Number.NaN, RefKind.None);
    expect(walk(none.table(0))).toEqual({ steps: [], after: ENDED });
    expect(walk(new Columns(8, true).table(0))).toEqual({ steps: [], after: ENDED });
  });

  it('reads what the table gives for each instruction of a system program', async () => {
    const layout = parseBinaryLayout(readFileSync('/usr/bin/ls'));
    const source = decoderSource(layout.architecture as 'x86_64');
    try {
      const table = await sweep(layout, source, [], new AbortController().signal);
      const read = walk(table);
      expect(read.steps.length).toBeGreaterThan(3_000);
      expect(read.steps).toEqual(expected(table));
      expect(read.after).toEqual(ENDED);
    } finally {
      source.close();
    }
  });
});

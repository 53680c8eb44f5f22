/*
 * Opening a binary of tens of thousands of symbols builds no hash table of more than 2^16 entries in
 * its graph and name index, and none that grows with the seeds in discovery (which keeps them in
 * typed columns): one Map or Set of a few hundred thousand entries rehashes all of them in
 * one synchronous step when it grows (hundreds of milliseconds of a held event loop on a library of
 * 300,000 symbols), so procedures are found by binary search over their starts and names in sharded
 * tables. Every Map and Set written while the graph and names are built is watched; the answers are
 * checked against the symbols the binary was assembled with. The steps are internal, so they are run
 * from the package source.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { compileFixture } from '@rea/test-helpers';
import { decoderSource } from '../src/engine.js';
import type { DecoderSource, EngineArchitecture } from '../src/engine.js';
import { discover } from '../src/analysis/discovery.js';
import type { Discovery } from '../src/analysis/discovery.js';
import { ProcedureGraph } from '../src/analysis/graph.js';
import { Pacer } from '../src/analysis/pace.js';
import { addressOfName, collectNames } from '../src/names.js';
import { removeTempDirs, tempDir } from './support.js';

const SYMBOLS = 70_000;
const LIMIT = 1 << 16;

/** Runs `work` while recording the largest size any Map or Set reaches through set/add. */
async function largestTable<T>(work: () => Promise<T>): Promise<{ value: T; largest: number }> {
  const set = Map.prototype.set;
  const add = Set.prototype.add;
  let largest = 0;
  Map.prototype.set = function <K, V>(this: Map<K, V>, key: K, value: V) {
    const out = set.call(this, key, value) as Map<K, V>;
    largest = Math.max(largest, this.size);
    return out;
  };
  Set.prototype.add = function <V>(this: Set<V>, value: V) {
    const out = add.call(this, value) as Set<V>;
    largest = Math.max(largest, this.size);
    return out;
  };
  try {
    return { value: await work(), largest };
  } finally {
    Map.prototype.set = set;
    Set.prototype.add = add;
  }
}

describe('issue 15: opening a binary of many symbols builds no large hash table', () => {
  let layout: BinaryLayout;
  let source: DecoderSource;
  let discovery: Discovery;
  const pacer = new Pacer(new AbortController().signal, Number.POSITIVE_INFINITY);

  beforeAll(async () => {
    const lines = ['.text'];
    for (let i = 0; i < SYMBOLS; i += 1) lines.push(`.globl f${i}`, `.type f${i},@function`, `f${i}:`, 'ret');
    const asm = join(tempDir(), 'many-symbols.s');
    writeFileSync(asm, `${lines.join('\n')}\n`);
    const file = compileFixture({ source: asm, compiler: 'gcc', args: ['-shared', '-nostdlib'], output: 'many.so' });
    layout = parseBinaryLayout(readFileSync(file));
    source = decoderSource(layout.architecture as EngineArchitecture);
    discovery = await discover(layout, source, new AbortController().signal, 'fast', pacer);
  }, 180_000);
  afterAll(() => {
    source.close();
    removeTempDirs();
  });

  it('should index procedures and names in tables of at most 2^16 entries, answering every lookup', async () => {
    expect(discovery.procedures.length).toBeGreaterThanOrEqual(SYMBOLS);
    const { value, largest } = await largestTable(async () => ({
      graph: await ProcedureGraph.build(layout, discovery, pacer),
      names: await collectNames(layout, discovery, pacer),
    }));
    expect(largest).toBeLessThanOrEqual(LIMIT);
    const { graph, names } = value;
    const symbols = new Map<string, number>();
    for (const s of layout.symbols) if (s.defined && /^f\d+$/.test(s.name)) symbols.set(s.name, s.address);
    expect(symbols.size).toBe(SYMBOLS);
    // Mismatches are collected, so that one assertion covers every lookup.
    const wrong: string[] = [];
    for (const p of discovery.procedures) if (graph.procedureAt(p.start) !== p) wrong.push(`procedure ${p.start}`);
    for (const [name, address] of symbols) {
      if (graph.procedureAt(address)?.name !== name) wrong.push(`procedure of ${name}`);
      if (names.byAddress.get(address) !== name) wrong.push(`name at ${address}`);
      if (addressOfName(names, name, (a) => graph.procedureAt(a)) !== address) wrong.push(`address of ${name}`);
    }
    expect(wrong).toEqual([]);
    expect(graph.procedureAt(discovery.procedures[0]!.start - 1)).toBeNull();
    expect(names.byName.has('f70000')).toBe(false);
    // Listed once per address and name, in address order.
    const listed = names.list.filter((n) => /^f\d+$/.test(n.name));
    expect(listed).toHaveLength(SYMBOLS);
    const addresses = names.list.map((n) => Number.parseInt(n.address.slice(2), 16));
    expect(addresses.findIndex((a, i) => i > 0 && a < addresses[i - 1]!)).toBe(-1);
  }, 120_000);

  it('should keep the procedure starts of discovery in typed columns: no Map or Set grows with the seeds', async () => {
    // Each of the 70,000 symbols is a seed; a map of them (and of objects, one per seed) rehashed in
    // one step as it grew and was traced by every collection while the open ran.
    const { value, largest } = await largestTable(() =>
      discover(layout, source, new AbortController().signal, 'fast', pacer),
    );
    expect(largest).toBeLessThanOrEqual(1024);
    expect(value.procedures.map((p) => [p.start, p.end, p.name, p.source, p.kind])).toEqual(
      discovery.procedures.map((p) => [p.start, p.end, p.name, p.source, p.kind]),
    );
    const named = new Map<string, number>();
    for (const s of layout.symbols) if (s.defined && /^f\d+$/.test(s.name)) named.set(s.name, s.address);
    const byStart = new Map(value.procedures.map((p) => [p.start, p]));
    const wrong = [...named].filter(([name, address]) => byStart.get(address)?.name !== name);
    expect(wrong).toEqual([]);
  }, 120_000);

  it('should list the names in address order without sorting more than 2^15 of them in one step', async () => {
    // One sort of every name (70,000 here) held the event loop for as long as it took.
    const arraySort = Array.prototype.sort;
    const typedSort = Float64Array.prototype.sort;
    let largest = 0;
    Array.prototype.sort = function (this: unknown[], compare?: (a: unknown, b: unknown) => number) {
      largest = Math.max(largest, this.length);
      return arraySort.call(this, compare);
    } as typeof arraySort;
    Float64Array.prototype.sort = function (this: Float64Array, compare?: (a: number, b: number) => number) {
      largest = Math.max(largest, this.length);
      return typedSort.call(this, compare);
    } as typeof typedSort;
    let names: Awaited<ReturnType<typeof collectNames>>;
    try {
      names = await collectNames(layout, discovery, pacer);
    } finally {
      Array.prototype.sort = arraySort;
      Float64Array.prototype.sort = typedSort;
    }
    expect(largest).toBeLessThanOrEqual(1 << 15);
    const listed = names.list.filter((n) => /^f\d+$/.test(n.name));
    expect(listed).toHaveLength(SYMBOLS);
    const addresses = names.list.map((n) => Number.parseInt(n.address.slice(2), 16));
    expect(addresses.findIndex((a, i) => i > 0 && a < addresses[i - 1]!)).toBe(-1);
  }, 120_000);
});

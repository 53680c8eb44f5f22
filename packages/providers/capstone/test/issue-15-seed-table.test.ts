/*
 * Discovery's seed table: an open-addressing hash table of typed columns, sized for the seeds a layout
 * offers so that it is not rehashed (one long step over hundreds of thousands of slots) while they are
 * offered. Its answers are those of a map from address to seed under the documented merge rule, with or
 * without growth; a table sized for N seeds takes N distinct ones without growing, and one sized for
 * none grows. Discovery of a 70,000-symbol library never grows its table.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import type { ProcedureSource } from '@rea/native';
import { compileFixture } from '@rea/test-helpers';
import { discover } from '../src/analysis/discovery.js';
import { Pacer } from '../src/analysis/pace.js';
import { SeedTable } from '../src/analysis/seeds.js';
import type { SeedKind } from '../src/analysis/seeds.js';
import { decoderSource } from '../src/engine.js';
import type { EngineArchitecture } from '../src/engine.js';
import { removeTempDirs, tempDir } from './support.js';

const SOURCES: ProcedureSource[] = [
  'symbol',
  'export',
  'import',
  'entry',
  'unwind-info',
  'call-target',
  'code-pointer',
  'engine',
];
const KINDS: SeedKind[] = ['function', 'import', 'thunk'];

interface Seed {
  source: ProcedureSource;
  size: number;
  kind: SeedKind;
  name: string | null;
  library: string | null;
}

/** The merge rule, written plainly: the better-ranked source wins source, kind and (when given) name. */
function offerTo(model: Map<number, Seed>, address: number, offered: Seed): void {
  const known = model.get(address);
  if (!known) {
    model.set(address, { ...offered });
    return;
  }
  if (SOURCES.indexOf(offered.source) < SOURCES.indexOf(known.source)) {
    if (offered.name !== null) known.name = offered.name;
    known.source = offered.source;
    known.kind = offered.kind;
  } else if (known.name === null) known.name = offered.name;
  if (!known.size) known.size = offered.size;
  if (known.library === null) known.library = offered.library;
}

const grow = (): jest.SpiedFunction<() => void> =>
  jest.spyOn(SeedTable.prototype as unknown as { grow: () => void }, 'grow');

afterEach(() => {
  jest.restoreAllMocks();
});

describe('issue 15: the seed table', () => {
  it.each([0, 40_000])('should answer as a map under the merge rule (sized for %i seeds)', (expected) => {
    const table = new SeedTable(expected);
    const model = new Map<number, Seed>();
    let x = 7;
    const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 60_000; i += 1) {
      // About 20,000 addresses, each offered three times on average; some above 2^32.
      const r = next() % 20_000;
      const address = r % 5 === 0 ? 0x7f00_0000_0000 + r * 16 : 0x1000 + r * 16;
      const seed: Seed = {
        source: SOURCES[next() % SOURCES.length]!,
        size: next() % 3 === 0 ? 0 : next() % 500,
        kind: KINDS[next() % KINDS.length]!,
        name: next() % 2 ? `n${next() % 1000}` : null,
        library: next() % 4 === 0 ? `lib${next() % 5}.so` : null,
      };
      table.offer(address, seed.source, seed.size, seed.kind, seed.name, seed.library);
      offerTo(model, address, seed);
    }
    expect(table.count).toBe(model.size);
    const wrong: number[] = [];
    for (const [address, seed] of model) {
      const slot = table.slotOf(address);
      const got = {
        source: table.sourceAt(slot),
        size: table.sizeAt(slot),
        kind: table.kindAt(slot),
        name: table.nameAt(slot),
        library: table.libraryAt(slot),
      };
      if (slot < 0 || JSON.stringify(got) !== JSON.stringify(seed)) wrong.push(address);
    }
    expect(wrong).toEqual([]);
    expect(table.has(0x1000 + 20_000 * 16)).toBe(false);
    expect(table.slotOf(0x0fff)).toBe(-1);
  });

  it('should take as many distinct seeds as it was sized for without growing, and grow when sized for none', () => {
    const sized = grow();
    const table = new SeedTable(300_000);
    for (let i = 0; i < 300_000; i += 1) table.offer(0x40_0000 + i * 4, 'symbol', 4, 'function', null, null);
    expect(sized).not.toHaveBeenCalled();
    expect(table.count).toBe(300_000);
    const unsized = new SeedTable();
    for (let i = 0; i < 300_000; i += 1) unsized.offer(0x40_0000 + i * 4, 'symbol', 4, 'function', null, null);
    // 2^10 slots to start, doubled until twice the seeds fit: 2^20.
    expect(sized).toHaveBeenCalledTimes(10);
    expect(unsized.count).toBe(300_000);
    expect(unsized.has(0x40_0000 + 299_999 * 4) && table.has(0x40_0000 + 299_999 * 4)).toBe(true);
  });
});

describe('issue 15: discovery sizes its seed table for the layout', () => {
  const SYMBOLS = 70_000;
  let file: string;
  beforeAll(() => {
    const lines = ['.text'];
    for (let i = 0; i < SYMBOLS; i += 1) lines.push(`.globl f${i}`, `.type f${i},@function`, `f${i}:`, 'ret');
    const asm = join(tempDir(), 'seeds.s');
    writeFileSync(asm, `${lines.join('\n')}\n`);
    file = compileFixture({ source: asm, compiler: 'gcc', args: ['-shared', '-nostdlib'], output: 'seeds.so' });
  }, 180_000);
  afterAll(() => removeTempDirs());

  it('should never grow the table while a 70,000-symbol library is discovered', async () => {
    const layout = parseBinaryLayout(readFileSync(file));
    const source = decoderSource(layout.architecture as EngineArchitecture);
    try {
      const grew = grow();
      const pacer = new Pacer(new AbortController().signal, Number.POSITIVE_INFINITY);
      const discovery = await discover(layout, source, new AbortController().signal, 'fast', pacer);
      expect(discovery.procedures.length).toBeGreaterThanOrEqual(SYMBOLS);
      expect(grew).not.toHaveBeenCalled();
    } finally {
      source.close();
    }
  }, 120_000);
});

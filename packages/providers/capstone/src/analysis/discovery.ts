import type { BinaryLayout, LayoutImport } from '@rea/artifact';
import type { ProcedureSource } from '@rea/native';
import type { Decoder } from '../engine.js';
import { ehFrameExtents, pdataExtents } from './unwind.js';
import { Flow, RefKind, breathe, codeSections, instructionAt, lowerBound, sweep } from './sweep.js';
import type { InstructionTable } from './sweep.js';

/** One discovered procedure: `[start, end)`. */
export interface ProcedureRecord {
  start: number;
  end: number;
  name: string;
  /** True when the name was synthesised (`sub_<hex>`). */
  synthetic: boolean;
  kind: 'function' | 'import' | 'thunk';
  source: ProcedureSource;
  library: string | null;
}

/** The result of discovery: the instruction table and the procedures, sorted by start. */
export interface Discovery {
  table: InstructionTable;
  procedures: ProcedureRecord[];
  /** Import stubs (ELF PLT, Mach-O stubs) by address. */
  stubs: Map<number, LayoutImport>;
  /** Import slots (PE IAT) by address: an indirect call through one is a call to the import. */
  slots: Map<number, LayoutImport>;
}

interface Seed {
  name: string | null;
  size: number;
  source: ProcedureSource;
  kind: ProcedureRecord['kind'];
  library: string | null;
}

const RANK: Record<ProcedureSource, number> = {
  symbol: 0,
  export: 1,
  import: 2,
  entry: 3,
  'unwind-info': 4,
  'call-target': 5,
  'code-pointer': 6,
  engine: 7,
};

/**
 * Finds the procedures of a binary: the entry point, defined function symbols, exports, import stubs
 * (named by their import), unwind-table extents (.eh_frame, .pdata), then every direct call target in
 * the decoded code (recursive over the call graph of the whole image, so stripped binaries work), and
 * finally code pointers (LEA/ADR/immediates) that land on an instruction outside every known extent.
 */
export async function discover(layout: BinaryLayout, decoder: Decoder, signal: AbortSignal): Promise<Discovery> {
  const sections = codeSections(layout);
  const inCode = (a: number) => {
    const i = lowerBound(sectionStarts, a + 1) - 1;
    const s = sections[i];
    return s !== undefined && a >= s.address && a < s.address + Math.min(s.size, s.fileSize);
  };
  const sectionStarts = sections.map((s) => s.address);
  const seeds = new Map<number, Seed>();
  const offer = (address: number, seed: Seed) => {
    if (!inCode(address)) return;
    const existing = seeds.get(address);
    if (!existing) {
      seeds.set(address, seed);
      return;
    }
    const better = RANK[seed.source] < RANK[existing.source];
    seeds.set(address, {
      name: better ? (seed.name ?? existing.name) : (existing.name ?? seed.name),
      size: existing.size || seed.size,
      source: better ? seed.source : existing.source,
      kind: better ? seed.kind : existing.kind,
      library: existing.library ?? seed.library,
    });
  };
  const stubs = new Map<number, LayoutImport>();
  const slots = new Map<number, LayoutImport>();
  for (const imp of layout.imports) {
    if (imp.address === null) continue;
    if (layout.format === 'pe') slots.set(imp.address, imp);
    else stubs.set(imp.address, imp);
  }
  const symbols = [...layout.symbols].sort(
    (a, b) => (a.binding === 'global' ? 0 : 1) - (b.binding === 'global' ? 0 : 1),
  );
  for (const sym of symbols) {
    if (sym.defined && sym.kind === 'function' && sym.address !== 0) {
      offer(sym.address, { name: sym.name, size: sym.size, source: 'symbol', kind: 'function', library: null });
    }
  }
  for (const exp of layout.exports)
    offer(exp.address, { name: exp.name, size: 0, source: 'export', kind: 'function', library: null });
  for (const [address, imp] of stubs)
    offer(address, { name: imp.name, size: 0, source: 'import', kind: 'import', library: imp.library });
  if (layout.entry !== null)
    offer(layout.entry, { name: null, size: 0, source: 'entry', kind: 'function', library: null });
  for (const u of [...ehFrameExtents(layout), ...pdataExtents(layout)]) {
    offer(u.start, { name: null, size: u.size, source: 'unwind-info', kind: 'function', library: null });
  }
  await breathe(signal, 'discovery');
  const table = await sweep(layout, decoder, [...seeds.keys()], signal);
  for (let i = 0; i < table.count; i += 1) {
    if (table.flow[i] === Flow.Call) {
      const t = table.target[i]!;
      if (!seeds.has(t) && instructionAt(table, t) >= 0)
        offer(t, { name: null, size: 0, source: 'call-target', kind: 'function', library: null });
    }
  }
  const sized = [...seeds.entries()]
    .filter(([, s]) => s.size > 0)
    .map(([a, s]) => [a, a + s.size] as const)
    .sort((x, y) => x[0] - y[0]);
  const sizedStarts = sized.map((x) => x[0]);
  const coveredFast = (a: number) => {
    const i = lowerBound(sizedStarts, a + 1) - 1;
    return i >= 0 && a < sized[i]![1];
  };
  for (let i = 0; i < table.count; i += 1) {
    if (table.refKind[i] !== RefKind.Value) continue;
    const t = table.ref[i]!;
    if (!seeds.has(t) && inCode(t) && instructionAt(table, t) >= 0 && !coveredFast(t)) {
      offer(t, { name: null, size: 0, source: 'code-pointer', kind: 'function', library: null });
    }
  }
  await breathe(signal, 'discovery');
  const starts = [...seeds.keys()].sort((a, b) => a - b);
  const procedures: ProcedureRecord[] = [];
  for (let k = 0; k < starts.length; k += 1) {
    const start = starts[k]!;
    const seed = seeds.get(start)!;
    const section = sections[lowerBound(sectionStarts, start + 1) - 1]!;
    const sectionEnd = section.address + Math.min(section.size, section.fileSize);
    const next = Math.min(starts[k + 1] ?? sectionEnd, sectionEnd);
    const end = seed.size > 0 ? Math.min(start + seed.size, next) : next;
    const name = seed.name ?? (start === layout.entry ? 'entry' : null);
    procedures.push({
      start,
      end: Math.max(end, start + 1),
      name: name ?? `sub_${start.toString(16)}`,
      synthetic: name === null,
      kind: seed.kind,
      source: seed.source,
      library: seed.library,
    });
  }
  return { table, procedures, stubs, slots };
}

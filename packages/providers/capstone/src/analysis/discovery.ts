import type { BinaryLayout, LayoutImport } from '@rea/artifact';
import type { ProcedureSource } from '@rea/native';
import type { DecoderSource } from '../engine.js';
import { InstructionIndex, instructionLists } from './instructionIndex.js';
import { ehFrameExtents, pdataExtents } from './unwind.js';
import { CHECK_MASK, Pacer } from './pace.js';
import { Flow, codeSections, lowerBound, sweep } from './sweep.js';
import { sortedNumbersPaced } from './sortPaced.js';
import type { InstructionTable, X86Reader } from './sweep.js';

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
export async function discover(
  layout: BinaryLayout,
  decoder: DecoderSource,
  signal: AbortSignal,
  reader: X86Reader = 'fast',
  pacer: Pacer = new Pacer(signal),
): Promise<Discovery> {
  const checkpoint = (i: number) => (i & CHECK_MASK) === 0 && pacer.due();
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
  for (let n = 0; n < symbols.length; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const sym = symbols[n]!;
    const label = sym.kind === 'other' && !sym.name.startsWith('.') && !sym.name.startsWith('$');
    if (sym.defined && (sym.kind === 'function' || label) && sym.address !== 0) {
      offer(sym.address, { name: sym.name, size: sym.size, source: 'symbol', kind: 'function', library: null });
    }
  }
  for (let n = 0; n < layout.exports.length; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const exp = layout.exports[n]!;
    offer(exp.address, { name: exp.name, size: 0, source: 'export', kind: 'function', library: null });
  }
  for (const [address, imp] of stubs)
    offer(address, { name: imp.name, size: 0, source: 'import', kind: 'import', library: imp.library });
  if (layout.entry !== null)
    offer(layout.entry, { name: null, size: 0, source: 'entry', kind: 'function', library: null });
  const extents = [...(await ehFrameExtents(layout, pacer)), ...pdataExtents(layout)];
  for (let n = 0; n < extents.length; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const u = extents[n]!;
    offer(u.start, { name: null, size: u.size, source: 'unwind-info', kind: 'function', library: null });
  }
  for (const section of sections)
    offer(section.address, { name: null, size: 0, source: 'engine', kind: 'function', library: null });
  await pacer.turn('discovery');
  const table = await sweep(layout, decoder, [...seeds.keys()], signal, reader, pacer);
  const index = await InstructionIndex.build(table, pacer);
  const lists = await instructionLists(table, pacer);
  for (let n = 0; n < lists.callsAndJumps.length; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const i = lists.callsAndJumps[n]!;
    if (table.flow[i] === Flow.Call) {
      const t = table.target(i);
      if (!seeds.has(t) && index.at(t) >= 0)
        offer(t, { name: null, size: 0, source: 'call-target', kind: 'function', library: null });
    } else if (table.flow[i] === Flow.Jump) {
      // A tail jump to an import thunk (`jmp [slot]`) reaches a procedure of its own.
      const k = index.at(table.target(i));
      if (k >= 0 && table.flow[k] === Flow.IndirectJump && slots.has(table.ref(k))) {
        offer(table.address[k]!, { name: null, size: 0, source: 'call-target', kind: 'function', library: null });
      }
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
  await pacer.maybe('discovery');
  for (let n = 0; n < lists.values.length; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const i = lists.values[n]!;
    const t = table.ref(i);
    if (!seeds.has(t) && inCode(t) && index.at(t) >= 0 && !coveredFast(t)) {
      offer(t, { name: null, size: 0, source: 'code-pointer', kind: 'function', library: null });
    }
  }
  const low = sections[0]?.address ?? 0;
  const high = sections.reduce((max, s) => Math.max(max, s.address + s.size), 0);
  const cases = await jumpTableCases(layout, table, index, lists.indirectJumps, seeds.keys(), slots, pacer);
  // Only the words that start an instruction are kept: most pointer-like words do not.
  const pointers = await dataPointers(layout, low, high, (value) => index.at(value) >= 0, pacer);
  for (let n = 0; n < pointers.length; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const pointer = pointers[n]!;
    // Side-effect-free tests, cheapest first.
    if (!seeds.has(pointer) && !coveredFast(pointer) && !cases.has(pointer)) {
      offer(pointer, { name: null, size: 0, source: 'code-pointer', kind: 'function', library: null });
    }
  }
  await seedTailJumpTargets(layout, table, index, lists.jumps, seeds, offer, pacer);
  await claimGaps(layout, table, index.ascending, seeds, offer, pacer);
  await pacer.turn('discovery');
  const starts = await sortedNumbersPaced(seeds.keys(), pacer, 'discovery');
  const procedures: ProcedureRecord[] = [];
  for (let k = 0; k < starts.length; k += 1) {
    if (checkpoint(k)) await pacer.turn('discovery');
    const start = starts[k]!;
    const seed = seeds.get(start)!;
    const section = sections[lowerBound(sectionStarts, start + 1) - 1]!;
    const sectionEnd = section.address + Math.min(section.size, section.fileSize);
    const next = Math.min(starts[k + 1] ?? sectionEnd, sectionEnd);
    const end = seed.size > 0 ? Math.min(start + seed.size, next) : next;
    // A procedure that only jumps through an import slot is a thunk for that import (PE `jmp [__imp_x]`).
    const first = index.at(start);
    const thunkOf = first >= 0 && table.flow[first] === Flow.IndirectJump ? slots.get(table.ref(first)) : undefined;
    const name = seed.name ?? thunkOf?.name ?? (start === layout.entry ? 'entry' : null);
    procedures.push({
      start,
      end: Math.max(end, start + 1),
      name: name ?? `sub_${start.toString(16)}`,
      synthetic: name === null,
      kind: thunkOf && seed.kind === 'function' ? 'thunk' : seed.kind,
      source: seed.source,
      library: seed.library ?? thunkOf?.library ?? null,
    });
  }
  return { table, procedures, stubs, slots };
}

const TERMINATORS = new Set<number>([Flow.Jump, Flow.Return, Flow.Stop, Flow.IndirectJump]);

/** Whether the instruction is alignment padding (NOP forms, INT3, AArch64 NOP/UDF #0). */
function isPadding(layout: BinaryLayout, address: number, size: number): boolean {
  const b = layout.readAt(address, size);
  if (!b || b.length === 0) return true;
  return paddingBytes(b, 0, b.length, layout.architecture === 'aarch64');
}

/** {@link isPadding} over the instruction bytes `b[start, end)` (non-empty), without a copy. */
function paddingBytes(b: Uint8Array, start: number, end: number, arm: boolean): boolean {
  if (arm) {
    const at = (k: number) => (start + k < end ? b[start + k]! : 0);
    const word = (at(0) | (at(1) << 8) | (at(2) << 16) | (at(3) << 24)) >>> 0;
    return word === 0xd503201f || word === 0;
  }
  let i = start;
  while (i < end && (b[i] === 0x66 || b[i] === 0x2e)) i += 1;
  const op = i < end ? b[i] : undefined;
  if (op === 0x90 || op === 0xcc || (op === 0x0f && i + 1 < end && b[i + 1] === 0x1f)) return true;
  for (let k = start; k < end; k += 1) if (b[k] !== 0) return false;
  return true;
}

/**
 * Claims decoded code outside every known extent: the first non-padding instruction of such a gap,
 * and each one that follows a terminator and padding, starts a procedure (source "engine").
 */
async function claimGaps(
  layout: BinaryLayout,
  table: InstructionTable,
  ascending: boolean,
  seeds: Map<number, Seed>,
  offer: (address: number, seed: Seed) => void,
  pacer: Pacer,
): Promise<void> {
  const starts = await sortedNumbersPaced(seeds.keys(), pacer, 'discovery');
  const sections = codeSections(layout);
  // Extent k is [starts[k], ends[k]).
  const ends = new Float64Array(starts.length);
  for (let k = 0; k < starts.length; k += 1) {
    if ((k & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const start = starts[k]!;
    const seed = seeds.get(start)!;
    const section = sections.find((s) => start >= s.address && start < s.address + s.size);
    const sectionEnd = section ? section.address + Math.min(section.size, section.fileSize) : start + 1;
    const next = Math.min(starts[k + 1] ?? sectionEnd, sectionEnd);
    ends[k] = seed.size > 0 ? Math.min(start + seed.size, next) : next;
  }
  let e = 0;
  let boundary = true;
  let previousSection = -1;
  let si = 0;
  let sectionBytes: Uint8Array | null = null;
  let sectionBase = 0;
  const arm = layout.architecture === 'aarch64';
  const sectionStarts = Float64Array.from(sections, (s) => s.address);
  const sectionEnds = Float64Array.from(sections, (s) => s.address + s.size);
  const address = table.address;
  let checked = 0;
  for (let i = 0; i < table.count; i += 1) {
    // Counted apart from `i`, which jumps over covered instructions.
    if ((++checked & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const a = address[i]!;
    // Instructions come in address order: advance to the section holding `a` (-1 when none does).
    while (si < sectionEnds.length && a >= sectionEnds[si]!) si += 1;
    const sectionIndex = si < sectionStarts.length && a >= sectionStarts[si]! ? si : -1;
    if (sectionIndex !== previousSection) {
      boundary = true;
      previousSection = sectionIndex;
      const section = sections[sectionIndex];
      sectionBytes = section ? layout.readAt(section.address, Math.min(section.size, section.fileSize)) : null;
      sectionBase = section ? section.address : 0;
    }
    while (e < ends.length && ends[e]! <= a) e += 1;
    const covered = e < ends.length && a >= starts[e]! && a < ends[e]!;
    if (covered) {
      boundary = true;
      // Addresses ascend, so every instruction before the extent's end is covered by it as well:
      // skip to the first one past it (the section is re-read there if it changed meanwhile).
      if (ascending) i = Math.max(i, lowerBound(address, ends[e]!) - 1);
      continue;
    }
    const size = table.size[i]!;
    const offset = a - sectionBase;
    const padding =
      sectionBytes && size > 0 && offset >= 0 && offset + size <= sectionBytes.length
        ? paddingBytes(sectionBytes, offset, offset + size, arm)
        : isPadding(layout, a, size);
    if (padding) {
      boundary = true;
      continue;
    }
    if (boundary) offer(a, { name: null, size: 0, source: 'engine', kind: 'function', library: null });
    boundary = TERMINATORS.has(table.flow[i]!);
  }
}

/**
 * Case targets of absolute jump tables (`jmp [table + index*4]`, as 32-bit non-PIC code dispatches a
 * switch): entries read from each indirect jump's table while they land on a decoded instruction after
 * the jump's procedure start and before the next known start. They are blocks of that procedure, so a
 * data-pointer scan must not turn them into procedures of their own (COFF symbols carry no sizes).
 */
async function jumpTableCases(
  layout: BinaryLayout,
  table: InstructionTable,
  index: InstructionIndex,
  indirectJumps: Int32Array,
  seedStarts: Iterable<number>,
  slots: ReadonlyMap<number, LayoutImport>,
  pacer: Pacer,
): Promise<Set<number>> {
  const starts = await sortedNumbersPaced(seedStarts, pacer, 'discovery');
  const size = layout.bits === 64 ? 8 : 4;
  const out = new Set<number>();
  for (let n = 0; n < indirectJumps.length; n += 1) {
    // Each jump reads up to 1024 table entries: the clock is read at every one.
    await pacer.maybe('discovery');
    const i = indirectJumps[n]!;
    const base = table.ref(i);
    if (Number.isNaN(base) || slots.has(base)) continue;
    const k = lowerBound(starts, table.address[i]! + 1) - 1;
    if (k < 0) continue;
    const lo = starts[k]!;
    const hi = starts[k + 1] ?? Number.POSITIVE_INFINITY;
    for (let n = 0; n < 1024; n += 1) {
      const bytes = layout.readAt(base + n * size, size);
      if (!bytes || bytes.length < size) break;
      const view = new DataView(bytes.buffer, bytes.byteOffset, size);
      const target = size === 8 ? u64(view, 0) : view.getUint32(0, true);
      if (target <= lo || target >= hi || index.at(target) < 0) break;
      out.add(target);
    }
  }
  return out;
}

/** A little-endian u64 as a number (rounded like `Number(bigint)` past 2^53), without a BigInt. */
function u64(view: DataView, at: number): number {
  return view.getUint32(at + 4, true) * 0x1_0000_0000 + view.getUint32(at, true);
}

/**
 * Pointer-sized, aligned values in `[low, high)` in allocated data sections (initialiser arrays,
 * tables, vtables) that pass `keep`, in section and address order.
 */
async function dataPointers(
  layout: BinaryLayout,
  low: number,
  high: number,
  keep: (value: number) => boolean,
  pacer: Pacer,
): Promise<number[]> {
  const size = layout.bits === 64 ? 8 : 4;
  const out: number[] = [];
  for (const section of layout.sections) {
    if (!section.flags.alloc || section.flags.execute || section.fileSize === 0 || section.address === 0) continue;
    if (section.fileSize > 64 * 1024 * 1024) continue;
    const bytes = layout.readAt(section.address, Math.min(section.size, section.fileSize));
    if (!bytes) continue;
    const skew = (size - (section.address % size)) % size;
    const words = wordsOf(bytes, skew);
    if (words) {
      // Aligned: read the little-endian words through a 32-bit view (a 64-bit value is two of them).
      if (size === 8) {
        for (let w = 0; w + 1 < words.length; w += 2) {
          if ((w & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
          const value = words[w + 1]! * 0x1_0000_0000 + words[w]!;
          if (value >= low && value < high && keep(value)) out.push(value);
        }
      } else {
        for (let w = 0; w < words.length; w += 1) {
          if ((w & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
          const value = words[w]!;
          if (value >= low && value < high && keep(value)) out.push(value);
        }
      }
      continue;
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = skew; i + size <= bytes.length; i += size) {
      if (((i - skew) & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
      const value = size === 8 ? u64(view, i) : view.getUint32(i, true);
      if (value >= low && value < high && keep(value)) out.push(value);
    }
  }
  return out;
}

const LITTLE_ENDIAN_HOST = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** The whole 32-bit words of `bytes` from `skew` on, as a view, when they are 4-byte aligned in memory on a little-endian host. */
function wordsOf(bytes: Uint8Array, skew: number): Uint32Array | null {
  const at = bytes.byteOffset + skew;
  if (!LITTLE_ENDIAN_HOST || at % 4 !== 0 || skew > bytes.length) return null;
  return new Uint32Array(bytes.buffer, at, Math.floor((bytes.length - skew) / 4));
}

/**
 * Tail-call targets: an unconditional direct jump that leaves its procedure (as the seeds so far
 * delimit it) and lands right after a terminator or padding starts a procedure of its own.
 */
async function seedTailJumpTargets(
  layout: BinaryLayout,
  table: InstructionTable,
  index: InstructionIndex,
  jumps: Int32Array,
  seeds: Map<number, Seed>,
  offer: (address: number, seed: Seed) => void,
  pacer: Pacer,
): Promise<void> {
  const starts = await sortedNumbersPaced(seeds.keys(), pacer, 'discovery');
  const found: number[] = [];
  for (let n = 0; n < jumps.length; n += 1) {
    if ((n & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const i = jumps[n]!;
    const target = table.target(i);
    if (seeds.has(target)) continue;
    const k = index.at(target);
    if (k <= 0) continue;
    const from = table.address[i]!;
    const own = lowerBound(starts, from + 1) - 1;
    const next = own + 1 < starts.length ? starts[own + 1]! : Number.POSITIVE_INFINITY;
    const ownStart = own >= 0 ? starts[own]! : Number.NEGATIVE_INFINITY;
    if (target >= ownStart && target < next) continue;
    const before = k - 1;
    const adjacent = table.address[before]! + table.size[before]! === target;
    if (
      !adjacent ||
      TERMINATORS.has(table.flow[before]!) ||
      isPadding(layout, table.address[before]!, table.size[before]!)
    ) {
      found.push(target);
    }
  }
  for (const target of found)
    offer(target, { name: null, size: 0, source: 'call-target', kind: 'function', library: null });
}

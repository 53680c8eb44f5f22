import type { BinaryLayout, LayoutImport } from '@rea/artifact';
import type { ProcedureSource } from '@rea/native';
import type { DecoderSource } from '../engine.js';
import { InstructionIndex } from './instructionIndex.js';
import { ehFrameExtents, pdataExtents } from './unwind.js';
import { settleUnwindStarts } from './unwindStarts.js';
import { CHECK_MASK, Pacer, SLICE } from './pace.js';
import { Flow, RefKind, codeSections, lowerBound, sweep } from './sweep.js';
import { SeedTable } from './seeds.js';
import { isPadding, paddingBytes } from './padding.js';
import { isDebugSection } from './dataPointers.js';
import { sentinelPointerLists } from './pointerLists.js';
import { grown } from './table.js';
import type { SeedKind } from './seeds.js';
import type { InstructionTable, X86Reader } from './sweep.js';
import type { ValueCursor } from './table.js';

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

/** Offers a procedure start to discovery's seeds (ignored outside the code sections). */
type Offer = (
  address: number,
  source: ProcedureSource,
  size?: number,
  kind?: SeedKind,
  name?: string | null,
  library?: string | null,
) => void;

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
  const sectionStarts = Float64Array.from(sections, (s) => s.address);
  // Function pointer lists laid out in code are data: nothing in them is decoded or starts a procedure.
  const lists = await sentinelPointerLists(layout, sections, pacer);
  const listStarts = Float64Array.from(lists, (l) => l.start);
  const inList = (a: number) => {
    const list = lists[lowerBound(listStarts, a + 1) - 1];
    return list !== undefined && a < list.end;
  };
  // Typed columns, not a map of objects: see SeedTable.
  const seeds = new SeedTable(layout.symbols.length + layout.exports.length + layout.imports.length);
  const offer: Offer = (address, source, size = 0, kind = 'function', name = null, library = null) => {
    if (inCode(address) && (lists.length === 0 || !inList(address)))
      seeds.offer(address, source, size, kind, name, library);
  };
  const stubs = new Map<number, LayoutImport>();
  const slots = new Map<number, LayoutImport>();
  for (const imp of layout.imports) {
    if (imp.address === null) continue;
    if (layout.format === 'pe') slots.set(imp.address, imp);
    else stubs.set(imp.address, imp);
  }
  // Global symbols first, then the others, each in table order (what a stable sort by binding gives).
  const symbols = layout.symbols;
  for (let n = 0; n < symbols.length * 2; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const sym = symbols[n % symbols.length]!;
    if ((sym.binding === 'global') !== n < symbols.length) continue;
    const label = sym.kind === 'other' && !sym.name.startsWith('.') && !sym.name.startsWith('$');
    if (sym.defined && (sym.kind === 'function' || label) && sym.address !== 0) {
      offer(sym.address, 'symbol', sym.size, 'function', sym.name);
    }
  }
  for (let n = 0; n < layout.exports.length; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const exp = layout.exports[n]!;
    offer(exp.address, 'export', 0, 'function', exp.name);
  }
  for (const [address, imp] of stubs) offer(address, 'import', 0, 'import', imp.name, imp.library);
  if (layout.entry !== null) offer(layout.entry, 'entry');
  for (const listed of [await ehFrameExtents(layout, pacer), pdataExtents(layout)]) {
    const extents = await settleUnwindStarts(layout, sections, listed, pacer);
    for (let n = 0; n < extents.length; n += 1) {
      if (checkpoint(n)) await pacer.turn('discovery');
      const u = extents[n]!;
      offer(u.start, 'unwind-info', u.size);
    }
  }
  for (const list of lists) for (const entry of list.entries) offer(entry, 'code-pointer');
  for (const section of sections) offer(section.address, 'engine');
  await pacer.turn('discovery');
  const anchors = await seeds.starts(pacer, 'discovery');
  const table = await sweep(layout, decoder, anchors, signal, reader, pacer, lists);
  const index = await InstructionIndex.build(table, pacer);
  // Every pass below acts on instructions that have a target or a referenced address: each walks
  // those alone (about a third of the table), in address order, with no list of them kept.
  await walkValues(table, pacer, (i, value) => {
    if (table.flowAt(i) === Flow.Call) {
      if (!seeds.has(value) && index.at(value) >= 0) offer(value, 'call-target');
    } else if (table.flowAt(i) === Flow.Jump) {
      // A tail jump to an import thunk (`jmp [slot]`) reaches a procedure of its own.
      const k = index.at(value);
      if (k >= 0 && table.flowAt(k) === Flow.IndirectJump && slots.has(table.ref(k)))
        offer(table.addressAt(k), 'call-target');
    }
  });
  // The extents of the seeds that have a size, by start.
  const { sizedStarts, sizedEnds } = await sizedExtents(seeds, pacer);
  const coveredFast = (a: number) => {
    const i = lowerBound(sizedStarts, a + 1) - 1;
    return i >= 0 && a < sizedEnds[i]!;
  };
  await pacer.maybe('discovery');
  await walkValues(table, pacer, (i, t) => {
    if (table.refKindAt(i) !== RefKind.Value) return;
    if (!seeds.has(t) && inCode(t) && index.at(t) >= 0 && !coveredFast(t)) offer(t, 'code-pointer');
  });
  const low = sections[0]?.address ?? 0;
  const high = sections.reduce((max, s) => Math.max(max, s.address + s.size), 0);
  const cases = await jumpTableCases(layout, table, index, seeds, slots, pacer);
  // Only the words that start an instruction are kept: most pointer-like words do not.
  const pointers = await dataPointers(layout, low, high, (value) => index.at(value) >= 0, pacer);
  for (let n = 0; n < pointers.length; n += 1) {
    if (checkpoint(n)) await pacer.turn('discovery');
    const pointer = pointers[n]!;
    // Side-effect-free tests, cheapest first.
    if (!seeds.has(pointer) && !coveredFast(pointer) && !cases.has(pointer)) offer(pointer, 'code-pointer');
  }
  await seedTailJumpTargets(layout, table, index, seeds, offer, pacer);
  await sizeImportThunks(layout, table, index, seeds, slots, pacer);
  await claimGaps(layout, table, index.ascending, seeds, offer, pacer);
  await pacer.turn('discovery');
  const starts = await seeds.starts(pacer, 'discovery');
  const procedures: ProcedureRecord[] = [];
  for (let k = 0; k < starts.length; k += 1) {
    if (checkpoint(k)) await pacer.turn('discovery');
    const start = starts[k]!;
    const slot = seeds.slotOf(start);
    const seed = {
      size: seeds.sizeAt(slot),
      name: seeds.nameAt(slot),
      kind: seeds.kindAt(slot),
      source: seeds.sourceAt(slot),
      library: seeds.libraryAt(slot),
    };
    const section = sections[lowerBound(sectionStarts, start + 1) - 1]!;
    const sectionEnd = section.address + Math.min(section.size, section.fileSize);
    const list = lists[lowerBound(listStarts, start)];
    const next = Math.min(starts[k + 1] ?? sectionEnd, sectionEnd, list?.start ?? sectionEnd);
    const end = seed.size > 0 ? Math.min(start + seed.size, next) : next;
    // A procedure that only jumps through an import slot is a thunk for that import (PE `jmp [__imp_x]`).
    const first = index.at(start);
    const thunkOf = first >= 0 && table.flowAt(first) === Flow.IndirectJump ? slots.get(table.ref(first)) : undefined;
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

/** The extents `[start, end)` of the seeds offered with a size, ascending by start. */
async function sizedExtents(
  seeds: SeedTable,
  pacer: Pacer,
): Promise<{ sizedStarts: Float64Array; sizedEnds: Float64Array }> {
  const starts = await seeds.starts(pacer, 'discovery');
  let n = 0;
  for (let k = 0; k < starts.length; k += 1) if (seeds.sizeAt(seeds.slotOf(starts[k]!)) > 0) n += 1;
  const sizedStarts = new Float64Array(n);
  const sizedEnds = new Float64Array(n);
  n = 0;
  for (let k = 0; k < starts.length; k += 1) {
    if ((k & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const start = starts[k]!;
    const size = seeds.sizeAt(seeds.slotOf(start));
    if (size > 0) {
      sizedStarts[n] = start;
      sizedEnds[n++] = start + size;
    }
  }
  return { sizedStarts, sizedEnds };
}

const TERMINATORS = new Set<number>([Flow.Jump, Flow.Return, Flow.Stop, Flow.IndirectJump]);

/**
 * Gives each procedure start that jumps through an import slot (a PE thunk, `jmp [__imp_x]`) the extent
 * of that jump and the padding after it. Linkers lay thunks out back to back, and a thunk that nothing
 * calls has no start of its own: without an extent, the one before it ran on over the rest of the run,
 * and {@link claimGaps} now starts each of them (after a terminator and padding) instead.
 */
async function sizeImportThunks(
  layout: BinaryLayout,
  table: InstructionTable,
  index: InstructionIndex,
  seeds: SeedTable,
  slots: ReadonlyMap<number, LayoutImport>,
  pacer: Pacer,
): Promise<void> {
  if (slots.size === 0) return;
  const starts = await seeds.starts(pacer, 'discovery');
  for (let k = 0; k < starts.length; k += 1) {
    if ((k & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const start = starts[k]!;
    let i = index.at(start);
    if (i < 0 || table.flowAt(i) !== Flow.IndirectJump || !slots.has(table.ref(i))) continue;
    let end = start + table.size[i]!;
    for (i += 1; i < table.count && table.addressAt(i) === end; i += 1) {
      if (!isPadding(layout, end, table.size[i]!)) break;
      end += table.size[i]!;
    }
    // The seed keeps its source, name and kind: only a size is added where it had none.
    seeds.offer(start, 'engine', end - start, 'function', null, null);
  }
}

/**
 * Claims decoded code outside every known extent: the first non-padding instruction of such a gap,
 * and each one that follows a terminator and padding, starts a procedure (source "engine").
 */
async function claimGaps(
  layout: BinaryLayout,
  table: InstructionTable,
  ascending: boolean,
  seeds: SeedTable,
  offer: Offer,
  pacer: Pacer,
): Promise<void> {
  const starts = await seeds.starts(pacer, 'discovery');
  const sections = codeSections(layout);
  // Extent k is [starts[k], ends[k]).
  const ends = new Float64Array(starts.length);
  for (let k = 0; k < starts.length; k += 1) {
    if ((k & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const start = starts[k]!;
    const size = seeds.sizeAt(seeds.slotOf(start));
    const section = sections.find((s) => start >= s.address && start < s.address + s.size);
    const sectionEnd = section ? section.address + Math.min(section.size, section.fileSize) : start + 1;
    const next = Math.min(starts[k + 1] ?? sectionEnd, sectionEnd);
    ends[k] = size > 0 ? Math.min(start + size, next) : next;
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
  let checked = 0;
  for (let i = 0; i < table.count; i += 1) {
    // Counted apart from `i`, which jumps over covered instructions.
    if ((++checked & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const a = table.addressAt(i);
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
      if (ascending) i = Math.max(i, table.lowerBound(ends[e]!) - 1);
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
    if (boundary) offer(a, 'engine');
    boundary = TERMINATORS.has(table.flowAt(i));
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
  seeds: SeedTable,
  slots: ReadonlyMap<number, LayoutImport>,
  pacer: Pacer,
): Promise<Set<number>> {
  const starts = await seeds.starts(pacer, 'discovery');
  const size = layout.bits === 64 ? 8 : 4;
  const out = new Set<number>();
  let steps = 0;
  for (const walk = table.valueCursor(); walk.next();) {
    if ((++steps & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
    const i = walk.index;
    if (table.flowAt(i) !== Flow.IndirectJump) continue;
    // Each jump reads up to 1024 table entries: the clock is read at every one.
    await pacer.maybe('discovery');
    const base = walk.value;
    if (Number.isNaN(base) || slots.has(base)) continue;
    const k = lowerBound(starts, table.addressAt(i) + 1) - 1;
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
 * Visits up to {@link SLICE} more of the instructions `walk` goes over (those with a value), with
 * their value; false once the walk is over. Synchronous, so that the loop is optimised on its own.
 */
function walkSlice(walk: ValueCursor, visit: (index: number, value: number) => void): boolean {
  for (let k = 0; k < SLICE; k += 1) {
    if (!walk.next()) return false;
    visit(walk.index, walk.value);
  }
  return true;
}

/**
 * Visits every instruction of `table` that has a value (a direct transfer's target, else the address
 * it references), in address order, a slice at a time with a turn of the event loop between slices
 * when one is due.
 */
async function walkValues(
  table: InstructionTable,
  pacer: Pacer,
  visit: (index: number, value: number) => void,
): Promise<void> {
  const walk = table.valueCursor();
  do await pacer.maybe('discovery');
  while (walkSlice(walk, visit));
}

/** A list of numbers in a typed array doubled when full. */
class NumberList {
  count = 0;
  values = new Float64Array(1024);

  push(value: number): void {
    if (this.count === this.values.length) this.values = grown(this.values, this.count * 2);
    this.values[this.count++] = value;
  }
}

/** What {@link dataPointers} keeps of a section's words: the range and the test. */
interface PointerFilter {
  low: number;
  high: number;
  keep: (value: number) => boolean;
  out: NumberList;
}

/**
 * Keeps the pointer-sized values of words `[from, to)` of an aligned section viewed as 32-bit words
 * (a 64-bit value, with `wide`, is two of them: `from` and `to` count values). Synchronous, so that the
 * loop is optimised on its own.
 */
function alignedPointers(words: Uint32Array, from: number, to: number, wide: boolean, filter: PointerFilter): void {
  const { low, high, keep, out } = filter;
  for (let v = from; v < to; v += 1) {
    const value = wide ? words[2 * v + 1]! * 0x1_0000_0000 + words[2 * v]! : words[v]!;
    if (value >= low && value < high && keep(value)) out.push(value);
  }
}

/** {@link alignedPointers} for a section not 4-byte aligned in memory: values `[from, to)` after `skew` bytes. */
function unalignedPointers(
  view: DataView,
  skew: number,
  from: number,
  to: number,
  size: number,
  filter: PointerFilter,
): void {
  const { low, high, keep, out } = filter;
  for (let v = from; v < to; v += 1) {
    const at = skew + v * size;
    const value = size === 8 ? u64(view, at) : view.getUint32(at, true);
    if (value >= low && value < high && keep(value)) out.push(value);
  }
}

/**
 * Pointer-sized, aligned values in `[low, high)` in allocated data sections (initialiser arrays,
 * tables, vtables; not debugging information) that pass `keep`, in section and address order.
 */
async function dataPointers(
  layout: BinaryLayout,
  low: number,
  high: number,
  keep: (value: number) => boolean,
  pacer: Pacer,
): Promise<Float64Array> {
  const size = layout.bits === 64 ? 8 : 4;
  // A typed list: a large library has hundreds of thousands of such words.
  const filter: PointerFilter = { low, high, keep, out: new NumberList() };
  for (const section of layout.sections) {
    if (!section.flags.alloc || section.flags.execute || section.fileSize === 0 || section.address === 0) continue;
    if (section.fileSize > 64 * 1024 * 1024 || isDebugSection(section)) continue;
    const bytes = layout.readAt(section.address, Math.min(section.size, section.fileSize));
    if (!bytes) continue;
    const skew = (size - (section.address % size)) % size;
    // Aligned: the little-endian words through a 32-bit view (a 64-bit value is two of them).
    const words = wordsOf(bytes, skew);
    const view = words ? null : new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const count = skew > bytes.length ? 0 : Math.floor((bytes.length - skew) / size);
    for (let from = 0; from < count; from += SLICE) {
      await pacer.maybe('discovery');
      const to = Math.min(count, from + SLICE);
      if (words) alignedPointers(words, from, to, size === 8, filter);
      else unalignedPointers(view!, skew, from, to, size, filter);
    }
  }
  return filter.out.values.subarray(0, filter.out.count);
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
  seeds: SeedTable,
  offer: Offer,
  pacer: Pacer,
): Promise<void> {
  const starts = await seeds.starts(pacer, 'discovery');
  const found: number[] = [];
  await walkValues(table, pacer, (i, target) => {
    if (table.flowAt(i) !== Flow.Jump || seeds.has(target)) return;
    const k = index.at(target);
    if (k <= 0) return;
    const from = table.addressAt(i);
    const own = lowerBound(starts, from + 1) - 1;
    const next = own + 1 < starts.length ? starts[own + 1]! : Number.POSITIVE_INFINITY;
    const ownStart = own >= 0 ? starts[own]! : Number.NEGATIVE_INFINITY;
    if (target >= ownStart && target < next) return;
    const before = k - 1;
    const adjacent = table.addressAt(before) + table.size[before]! === target;
    if (
      !adjacent ||
      TERMINATORS.has(table.flowAt(before)) ||
      isPadding(layout, table.addressAt(before), table.size[before]!)
    ) {
      found.push(target);
    }
  });
  for (const target of found) offer(target, 'call-target');
}

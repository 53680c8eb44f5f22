import type { BinaryLayout } from '@rea/artifact';
import { formatAddress } from '@rea/native/core';
import type {
  BasicBlock,
  CallSite,
  Callees,
  ControlFlow,
  FlowEdge,
  NativeReference,
  UnresolvedTransfer,
} from '@rea/native';
import type { Discovery, ProcedureRecord } from './discovery.js';
import { Flow, RefKind, instructionAt, lowerBound } from './sweep.js';
import type { AddressColumn } from './sweep.js';
import { a64JumpTable } from './a64Tables.js';
import { CHECK_MASK, SLICE } from './pace.js';
import type { Pacer } from './pace.js';

const hex = (a: number) => formatAddress(a);
const KIND_CALL = 0;
const KIND_JUMP = 1;
const KIND_DATA = 2;
const KIND_CODE_POINTER = 3;
const KIND_NAMES = ['call', 'jump', 'data', 'code-pointer'] as const;

/** Relations over discovered procedures: extents, CFGs, calls and cross-references (indexed once). */
export class ProcedureGraph {
  /** Procedure starts, ascending (discovery lists procedures by start): looked up by binary search. */
  private readonly starts: Float64Array;
  private readonly flows = new Map<number, ControlFlow>();
  /**
   * The instructions that make an edge or a reference (one each: an instruction has one value), by
   * instruction number, sorted by what they reach (ties in address order). Where one comes from,
   * what it reaches and its kind are read from the instruction table: 4 bytes per reference are kept,
   * where columns of source, target and kind took 13.
   */
  private readonly byTarget: Uint32Array;
  private readonly mapped: (a: number) => 'code' | 'data' | null;

  private constructor(
    private readonly layout: BinaryLayout,
    private readonly discovery: Discovery,
    byTarget: Uint32Array,
    starts: Float64Array,
  ) {
    this.mapped = mappedTest(layout);
    this.starts = starts;
    this.byTarget = byTarget;
  }

  /** Bytes the cross-reference index keeps (what stays in memory besides the instruction table). */
  get indexByteLength(): number {
    return this.byTarget.byteLength;
  }

  /**
   * What instruction `i`, whose value is `value`, contributes: 0 nothing, else 1 a branch edge (a
   * direct transfer's target), 2 a data reference, 6 a code pointer (a value loaded that lands in code).
   */
  private static contribution(
    t: Discovery['table'],
    mapped: (a: number) => 'code' | 'data' | null,
    i: number,
    value: number,
  ): number {
    const f = t.flowAt(i);
    if (f === Flow.Call || f === Flow.Jump || f === Flow.Conditional) return 1;
    const where = mapped(value);
    if (where === null) return 0;
    return t.refKindAt(i) === RefKind.Value && where === 'code' ? 6 : 2;
  }

  /** The kind of reference instruction `i` makes (KIND_*), or -1 when it makes none. */
  private kindOf(i: number): number {
    const t = this.discovery.table;
    const value = t.value(i);
    if (value !== value) return -1;
    const mark = ProcedureGraph.contribution(t, this.mapped, i, value);
    if (mark === 0) return -1;
    return mark & 1 ? (t.flowAt(i) === Flow.Call ? KIND_CALL : KIND_JUMP) : mark & 4 ? KIND_CODE_POINTER : KIND_DATA;
  }

  /**
   * Indexes the discovered procedures' branch edges and references, giving the event loop turns
   * through `pacer` while the instruction table is walked.
   */
  static async build(layout: BinaryLayout, discovery: Discovery, pacer: Pacer): Promise<ProcedureGraph> {
    const mapped = mappedTest(layout);
    const t = discovery.table;
    // Only the instructions that have a value are visited, twice, so that the columns are allocated
    // at their exact size with no column of marks kept between the passes.
    const contributes = (i: number, value: number) => ProcedureGraph.contribution(t, mapped, i, value) !== 0;
    let n = 0;
    let highest = 0;
    let steps = 0;
    for (const walk = t.valueCursor(); walk.next();) {
      if ((++steps & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('cross-references');
      if (!contributes(walk.index, walk.value)) continue;
      if (walk.value > highest) highest = walk.value;
      n += 1;
    }
    // What each reaches, in instruction order, while they are sorted (32-bit when every value fits).
    const to: AddressColumn = highest < 0x1_0000_0000 ? new Uint32Array(n) : new Float64Array(n);
    const instruction = new Uint32Array(n);
    let x = 0;
    for (const walk = t.valueCursor(); walk.next();) {
      if ((++steps & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('cross-references');
      if (!contributes(walk.index, walk.value)) continue;
      to[x] = walk.value;
      instruction[x++] = walk.index;
    }
    const order = await sortByTarget(to, pacer);
    // Reused in place: from positions in `to` to instruction numbers.
    for (let k = 0; k < n; k += 1) {
      if ((k & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('cross-references');
      order[k] = instruction[order[k]!]!;
    }
    const starts = new Float64Array(discovery.procedures.length);
    for (const [i, p] of discovery.procedures.entries()) {
      if ((i & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('cross-references');
      starts[i] = p.start;
    }
    return new ProcedureGraph(layout, discovery, order, starts);
  }

  /** The procedure starting at `address`. */
  procedureAt(address: number): ProcedureRecord | null {
    const i = lowerBound(this.starts, address);
    return this.starts[i] === address ? this.discovery.procedures[i]! : null;
  }

  /** The procedure whose extent contains `address`. */
  containing(address: number): ProcedureRecord | null {
    const i = lowerBound(this.starts, address + 1) - 1;
    const p = this.discovery.procedures[i];
    return p && address < p.end ? p : null;
  }

  /** `[lo, hi)` indices of the procedure's instructions in the table. */
  instructionRange(p: ProcedureRecord): [number, number] {
    const t = this.discovery.table;
    return [t.lowerBound(p.start), t.lowerBound(p.end)];
  }

  /**
   * Basic blocks (leaders: entry, in-extent branch targets, instructions after transfers) and edges,
   * computed once per procedure; a large procedure's passes give the event loop turns through `pacer`
   * (`cancelled` naming `phase` at a turn after a cancel, with nothing kept).
   */
  async controlFlow(p: ProcedureRecord, pacer: Pacer, phase: string): Promise<ControlFlow> {
    const cached = this.flows.get(p.start);
    if (cached) return cached;
    const t = this.discovery.table;
    const [lo, hi] = this.instructionRange(p);
    // Checked without an await per instruction: a turn is awaited only when one is due.
    const due = (i: number): boolean => ((i - lo) & CHECK_MASK) === CHECK_MASK && pacer.due();
    const inside = (a: number) => a >= p.start && a < p.end;
    const leaders = new Set<number>();
    if (lo < hi) leaders.add(t.addressAt(lo));
    const tables = new Map<number, number[]>();
    for (let i = lo; i < hi; i += 1) {
      if (due(i)) await pacer.turn(phase);
      if (t.flowAt(i) !== Flow.IndirectJump || this.resolvedSlot(t.ref(i))) continue;
      const cases = this.jumpTable(p, lo, i);
      if (cases.length > 0) {
        tables.set(i, cases);
        for (const c of cases) leaders.add(c);
      }
      // A table reads up to 1024 entries: the clock is read after each.
      await pacer.maybe(phase);
    }
    for (let i = lo; i < hi; i += 1) {
      if (due(i)) await pacer.turn(phase);
      const f = t.flowAt(i);
      if (f === Flow.None || f === Flow.Call || f === Flow.IndirectCall) continue;
      if ((f === Flow.Jump || f === Flow.Conditional) && inside(t.target(i))) leaders.add(t.target(i));
      if (i + 1 < hi) leaders.add(t.addressAt(i + 1));
    }
    const blocks: BasicBlock[] = [];
    const edges: FlowEdge[] = [];
    const unresolved: UnresolvedTransfer[] = [];
    let blockStart = lo;
    for (let i = lo; i < hi; i += 1) {
      if (due(i)) await pacer.turn(phase);
      const f = t.flowAt(i);
      if (f === Flow.IndirectCall || f === Flow.IndirectJump) {
        if (!this.resolvedSlot(t.ref(i)) && p.kind !== 'import' && !tables.has(i)) {
          unresolved.push({
            site: hex(t.addressAt(i)),
            kind: f === Flow.IndirectCall ? 'indirect-call' : 'indirect-jump',
            instruction: f === Flow.IndirectCall ? 'call' : 'jump',
          });
        }
      }
      const nextAddress = t.addressAt(i) + t.size[i]!;
      const last = i + 1 >= hi || leaders.has(t.addressAt(i + 1));
      if (!last) continue;
      const start = t.addressAt(blockStart);
      blocks.push({ start: hex(start), end: hex(nextAddress), instruction_count: i + 1 - blockStart });
      const target = t.target(i);
      const fallsThrough = f === Flow.None || f === Flow.Call || f === Flow.IndirectCall || f === Flow.Conditional;
      if ((f === Flow.Jump || f === Flow.Conditional) && inside(target) && leaders.has(target)) {
        edges.push({ from: hex(start), to: hex(target), kind: f === Flow.Jump ? 'branch' : 'conditional' });
      }
      for (const c of tables.get(i) ?? []) edges.push({ from: hex(start), to: hex(c), kind: 'table' });
      if (fallsThrough && i + 1 < hi && t.addressAt(i + 1) === nextAddress) {
        edges.push({ from: hex(start), to: hex(nextAddress), kind: 'fallthrough' });
      }
      blockStart = i + 1;
    }
    const flow = { blocks, edges, unresolved };
    this.flows.set(p.start, flow);
    return flow;
  }

  /**
   * The case targets of the jump table an indirect jump at index `i` dispatches through, or [] when
   * none is recognised. Two shapes: a table of 32-bit offsets relative to its own base, whose address a
   * LEA/ADR loaded shortly before the jump (position-independent x86-64 code), and a table of absolute
   * pointers indexed by the jump's own memory operand. Entries are read while they land on an
   * instruction inside the procedure (at most 1024). AArch64 tables: see {@link a64JumpTable}.
   */
  private jumpTable(p: ProcedureRecord, lo: number, i: number): number[] {
    const t = this.discovery.table;
    const inside = (a: number) => a >= p.start && a < p.end && instructionAt(t, a) >= 0;
    if (this.layout.architecture === 'aarch64')
      return a64JumpTable(this.layout, t, lo, i, (a) => this.isData(a), inside) ?? [];
    const out: number[] = [];
    const ownRef = t.ref(i);
    if (ownRef === ownRef && this.isData(ownRef)) {
      const size = this.layout.bits === 64 ? 8 : 4;
      for (let k = 0; k < 1024; k += 1) {
        const bytes = this.layout.readAt(ownRef + k * size, size);
        if (!bytes) break;
        const view = new DataView(bytes.buffer, bytes.byteOffset, size);
        const target = size === 8 ? Number(view.getBigUint64(0, true)) : view.getUint32(0, true);
        if (!inside(target)) break;
        out.push(target);
      }
      return [...new Set(out)];
    }
    for (let j = i - 1; j >= Math.max(lo, i - 8); j -= 1) {
      const f = t.flowAt(j);
      if (f !== Flow.None) break;
      const base = t.ref(j);
      if (t.refKindAt(j) !== RefKind.Value || base !== base || !this.isData(base)) continue;
      for (let k = 0; k < 1024; k += 1) {
        const bytes = this.layout.readAt(base + k * 4, 4);
        if (!bytes) break;
        const entry = new DataView(bytes.buffer, bytes.byteOffset, 4).getInt32(0, true);
        const target = base + entry;
        if (!inside(target)) break;
        out.push(target);
      }
      return [...new Set(out)];
    }
    return out;
  }

  private isData(address: number): boolean {
    return this.mapped(address) === 'data';
  }

  private resolvedSlot(slot: number): boolean {
    return !Number.isNaN(slot) && this.discovery.slots.has(slot);
  }

  private nameOf(address: number): string | null {
    return this.procedureAt(address)?.name ?? null;
  }

  /**
   * Calls made from the procedure, in address order, plus unresolved indirect transfers; paced as
   * {@link ProcedureGraph.controlFlow} is.
   */
  async callees(p: ProcedureRecord, pacer: Pacer, phase: string): Promise<Callees> {
    const t = this.discovery.table;
    const [lo, hi] = this.instructionRange(p);
    const calls: CallSite[] = [];
    for (let i = lo; i < hi; i += 1) {
      if (((i - lo) & CHECK_MASK) === CHECK_MASK && pacer.due()) await pacer.turn(phase);
      const f = t.flowAt(i);
      const site = hex(t.addressAt(i));
      const target = t.target(i);
      if (f === Flow.Call && !Number.isNaN(target)) {
        calls.push({ site, procedure: hex(target), name: this.nameOf(target), kind: 'call' });
      } else if (
        f === Flow.Jump &&
        !Number.isNaN(target) &&
        (target < p.start || target >= p.end) &&
        this.procedureAt(target) !== null
      ) {
        calls.push({ site, procedure: hex(target), name: this.nameOf(target), kind: 'tail-call' });
      } else if ((f === Flow.IndirectCall || f === Flow.IndirectJump) && this.resolvedSlot(t.ref(i))) {
        calls.push({
          site,
          procedure: hex(t.ref(i)),
          name: this.discovery.slots.get(t.ref(i))!.name,
          kind: 'import-call',
        });
      }
    }
    return { calls, unresolved: (await this.controlFlow(p, pacer, phase)).unresolved };
  }

  /** The instructions referencing `address`, in address order. */
  private refsToIndices(address: number): number[] {
    const out: number[] = [];
    const t = this.discovery.table;
    const order = this.byTarget;
    // The first k whose instruction's value is >= address.
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t.value(order[mid]!) < address) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < order.length && t.value(order[k]!) === address; k += 1) out.push(order[k]!);
    return out;
  }

  /** Direct calls (and tail jumps from other procedures) reaching the procedure's entry. */
  callers(p: ProcedureRecord): CallSite[] {
    const out: CallSite[] = [];
    const t = this.discovery.table;
    for (const i of this.refsToIndices(p.start)) {
      const kind = this.kindOf(i);
      const from = t.addressAt(i);
      const caller = this.containing(from);
      if (kind === KIND_CALL) {
        out.push({ site: hex(from), procedure: hex(caller?.start ?? from), name: caller?.name ?? null, kind: 'call' });
      } else if (kind === KIND_JUMP && caller && caller.start !== p.start) {
        out.push({ site: hex(from), procedure: hex(caller.start), name: caller.name, kind: 'tail-call' });
      }
    }
    return out;
  }

  /** The reference instruction `i` makes (of kind `kind`). */
  private reference(i: number, kind: number): NativeReference {
    const t = this.discovery.table;
    const from = t.addressAt(i);
    const within = this.containing(from);
    return {
      from: hex(from),
      to: hex(t.value(i)),
      kind: KIND_NAMES[kind]!,
      from_procedure: within ? hex(within.start) : null,
    };
  }

  /** Every reference to `address`. */
  referencesTo(address: number): NativeReference[] {
    return this.refsToIndices(address).map((i) => this.reference(i, this.kindOf(i)));
  }

  /** The references made from instructions at addresses in `[from, to)`, in instruction order. */
  private referencesIn(from: number, to: number): NativeReference[] {
    const out: NativeReference[] = [];
    const t = this.discovery.table;
    for (let i = t.lowerBound(from); i < t.count && t.addressAt(i) < to; i += 1) {
      const kind = this.kindOf(i);
      if (kind >= 0) out.push(this.reference(i, kind));
    }
    return out;
  }

  /** The references made by the instruction at `address`. */
  referencesFrom(address: number): NativeReference[] {
    return this.referencesIn(address, address + 1);
  }

  /** Every reference made from inside the procedure's extent. */
  referencesWithin(p: ProcedureRecord): NativeReference[] {
    return this.referencesIn(p.start, p.end);
  }
}

/** Widens `range` ([lowest, highest, 1 while all are integers]) by `targets[from, to)`. */
function widen(targets: AddressColumn, from: number, to: number, range: Float64Array): void {
  let min = range[0]!;
  let max = range[1]!;
  let integral = range[2]!;
  for (let i = from; i < to; i += 1) {
    const v = targets[i]!;
    if (v > max) max = v;
    if (v < min) min = v;
    if (integral === 1 && v !== Math.floor(v)) integral = 0;
  }
  range[0] = min;
  range[1] = max;
  range[2] = integral;
}

/**
 * Indices of `targets` in ascending target order (ties in index order, i.e. by source address). Targets
 * that are all integers below 2^32 (every image but a few 64-bit ones) take a stable two-pass radix
 * sort on 16-bit digits; otherwise target and index are packed into one exactly representable double
 * and sorted natively; a comparator sort is the last resort when that key would not fit in 53 bits.
 */
async function sortByTarget(targets: AddressColumn, pacer: Pacer): Promise<Uint32Array> {
  const n = targets.length;
  // [lowest (at most 0), highest (at least 0), 1 while every target is an integer].
  const range = Float64Array.of(0, 0, 1);
  for (let from = 0; from < n; from += SLICE) {
    await pacer.maybe('cross-references');
    widen(targets, from, Math.min(n, from + SLICE), range);
  }
  const min = range[0]!;
  const max = range[1]!;
  if (min === 0 && range[2] === 1 && max < 0x1_0000_0000) return radixByTarget(targets, max, pacer);
  const order = new Uint32Array(n);
  const scale = 2 ** Math.max(1, Math.ceil(Math.log2(n + 1)));
  if (min === 0 && Number.isSafeInteger(max) && max < Number.MAX_SAFE_INTEGER / scale) {
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i += 1) keys[i] = targets[i]! * scale + i;
    keys.sort();
    for (let i = 0; i < n; i += 1) order[i] = keys[i]! % scale;
    return order;
  }
  for (let i = 0; i < n; i += 1) order[i] = i;
  order.sort((a, b) => targets[a]! - targets[b]! || a - b);
  return order;
}

/** Counts `keys[from, to)` by digit (`(key >>> shift) & mask`) in `count`, one slot past the digit. */
function countDigits(
  keys: Uint32Array,
  from: number,
  to: number,
  shift: number,
  mask: number,
  count: Uint32Array,
): void {
  for (let i = from; i < to; i += 1) count[((keys[i]! >>> shift) & mask) + 1]! += 1;
}

/**
 * Places the indices `from..to-1` into `out` by the digit `(keys[index] >>> shift) & mask` of their key,
 * at the running positions in `next`: the first pass of {@link radixByTarget}.
 */
function placeByDigit(
  keys: Uint32Array,
  from: number,
  to: number,
  shift: number,
  mask: number,
  next: Uint32Array,
  out: Uint32Array,
): void {
  for (let i = from; i < to; i += 1) out[next[(keys[i]! >>> shift) & mask]!++] = i;
}

/**
 * Places the indices `order[from, to)` into `out` as {@link placeByDigit} places `from..to-1`: the second
 * pass. A function of its own: one loop serving both passes was optimised during the first, and left its
 * optimised code (deoptimised) on the first index it read from `order`.
 */
function placeOrderedByDigit(
  keys: Uint32Array,
  order: Uint32Array,
  from: number,
  to: number,
  shift: number,
  mask: number,
  next: Uint32Array,
  out: Uint32Array,
): void {
  for (let k = from; k < to; k += 1) {
    const i = order[k]!;
    out[next[(keys[i]! >>> shift) & mask]!++] = i;
  }
}

/**
 * LSD radix sort of indices by unsigned 32-bit target `<= max`: the low half of the key's bits, then
 * the high half (at most 16 bits each, so the bucket counts stay small for small images). Stable, so
 * ties stay in index order. Each pass runs a slice at a time in a synchronous loop (optimised on its
 * own), with a turn of the event loop between slices when one is due.
 */
async function radixByTarget(targets: AddressColumn, max: number, pacer: Pacer): Promise<Uint32Array> {
  const n = targets.length;
  let bits = 1;
  while (bits < 32 && max >= 2 ** bits) bits += 1;
  const lowBits = Math.ceil(bits / 2);
  const lowMask = (1 << lowBits) - 1;
  const highMask = (1 << (bits - lowBits)) - 1;
  const slices = async (pass: (from: number, to: number) => void): Promise<void> => {
    for (let from = 0; from < n; from += SLICE) {
      await pacer.maybe('cross-references');
      pass(from, Math.min(n, from + SLICE));
    }
  };
  let keys: Uint32Array;
  if (targets instanceof Uint32Array) keys = targets;
  else {
    const wide = targets;
    keys = new Uint32Array(n);
    await slices((from, to) => keys.set(wide.subarray(from, to), from));
  }
  const low = new Uint32Array(n);
  const order = new Uint32Array(n);
  const count = new Uint32Array((1 << lowBits) + 1);
  await slices((from, to) => countDigits(keys, from, to, 0, lowMask, count));
  for (let d = 1; d < count.length; d += 1) count[d]! += count[d - 1]!;
  await slices((from, to) => placeByDigit(keys, from, to, 0, lowMask, count, low));
  const high = new Uint32Array(highMask + 2);
  await slices((from, to) => countDigits(keys, from, to, lowBits, highMask, high));
  for (let d = 1; d < high.length; d += 1) high[d]! += high[d - 1]!;
  await slices((from, to) => placeOrderedByDigit(keys, low, from, to, lowBits, highMask, high, order));
  return order;
}

/** Whether an address lies in a mapped code section, a mapped data section, or neither. */
function mappedTest(layout: BinaryLayout): (a: number) => 'code' | 'data' | null {
  const sections = layout.sections
    .filter((s) => s.flags.alloc && s.size > 0 && s.address > 0)
    .sort((a, b) => a.address - b.address);
  // Plain columns: the test runs once per reference while the index is built.
  const starts = Float64Array.from(sections, (s) => s.address);
  const ends = Float64Array.from(sections, (s) => s.address + s.size);
  const code = Uint8Array.from(sections, (s) => (s.flags.execute ? 1 : 0));
  return (a) => {
    const i = lowerBound(starts, a + 1) - 1;
    if (i < 0 || a >= ends[i]!) return null;
    return code[i] === 1 ? 'code' : 'data';
  };
}

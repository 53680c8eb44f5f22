import { Flow } from './classify.js';
import { referenceFields } from './fields.js';

/**
 * Addresses: 32-bit when every one is below 2^32 (most images), else doubles. Either indexes to the
 * same numbers.
 */
export type AddressColumn = Uint32Array | Float64Array;

/**
 * Instructions per address block: an instruction's address is its block's first address plus a one-byte
 * offset, and 16 instructions of at most 15 bytes each span less than {@link FAR} bytes.
 */
const BLOCK_SHIFT = 4;

/** In the offset column, the mark of an address kept in the table's map of far addresses. */
const FAR = 0xff;

/** A kind byte holds the {@link Flow} (0-7) in its low bits and the `RefKind` above them. */
const FLOW_MASK = 0x7;
const REF_KIND_SHIFT = 3;

/** Targets and referenced addresses: 32-bit in an image below 2^32, else doubles. */
type ValueColumn = Uint32Array | Float64Array;

/** In a 32-bit value column, the mark of a value kept in the table's map of wide values. */
const WIDE = 0xffff_ffff;

/** The number of set bits in a 32-bit word. */
export function popcount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Whether a flow is a direct transfer (call, jump, conditional branch): its operand value is a target. */
function direct(flow: number): boolean {
  return flow === Flow.Call || flow === Flow.Jump || flow === Flow.Conditional;
}

/**
 * `value` when it can be an address of the image (a non-negative integer up to 2^53 - 1, what native
 * addresses are formatted from), else NaN. Data decoded as code yields branch targets and operands
 * below zero or wrapped to 64-bit values (`call 0xffffffff8000…`, `[rip - 0x80000000]` near the start
 * of an image): such a transfer or reference names nothing, and is recorded as naming nothing.
 */
export function addressOrNaN(value: number): number {
  return value >= 0 && value <= Number.MAX_SAFE_INTEGER ? value : Number.NaN;
}

/**
 * The decoded instruction stream of every executable section, in address order (struct of arrays).
 * An instruction has a branch target or a referenced address, never both (a direct transfer names
 * no other address), and about a third of instructions have either: those values are stored densely,
 * in instruction order, and found through a bitmap of the instructions that have one with a running
 * count per 32 instructions. Addresses are stored per block of 16 instructions, each instruction as a
 * one-byte offset from its block's first (a farther one, after skipped bytes or at a section's start,
 * is kept aside); its flow and reference kind share a byte. Each instruction so costs 3 bytes, a
 * quarter byte of block address (half above 2^32), a quarter byte of value index, and 4 bytes per
 * value (8 above 2^32).
 */
export class InstructionTable {
  constructor(
    readonly count: number,
    /** The address of each block's first instruction (block `i >>> BLOCK_SHIFT`). */
    private readonly blockAddress: AddressColumn,
    /** Each instruction's address less its block's first, or {@link FAR} when that is kept in `far`. */
    private readonly offset: Uint8Array,
    /** The addresses of the instructions that lie {@link FAR} or more bytes after their block's first. */
    private readonly far: ReadonlyMap<number, number>,
    readonly size: Uint8Array,
    /** Each instruction's {@link Flow} (low 3 bits) and `RefKind` (the bits above). */
    private readonly kind: Uint8Array,
    /** Bit `i & 31` of word `i >>> 5` is set when instruction `i` has a value. */
    private readonly hasValue: Uint32Array,
    /** The number of values before instruction `32w`, for word `w`. */
    private readonly valueRank: Uint32Array,
    /**
     * The values, in instruction order: a direct transfer's target, else the referenced address. In
     * an image below 2^32 they are 32-bit, and a value that does not fit (a 64-bit constant loaded as
     * an immediate) reads as {@link WIDE} there and is kept in `wide` by its place in `values`.
     */
    private readonly values: ValueColumn,
    private readonly wide: ReadonlyMap<number, number>,
    /** How many instructions Capstone decoded (the rest were measured by the fast x86 reader). */
    readonly engineDecoded: number,
  ) {}

  /** Instruction `i`'s {@link Flow}. */
  flowAt(i: number): number {
    return this.kind[i]! & FLOW_MASK;
  }

  /** How instruction `i` refers to the address it references (a `RefKind`; None without one). */
  refKindAt(i: number): number {
    return this.kind[i]! >>> REF_KIND_SHIFT;
  }

  /** Instruction `i`'s address. */
  addressAt(i: number): number {
    const offset = this.offset[i]!;
    return offset === FAR ? this.far.get(i)! : this.blockAddress[i >>> BLOCK_SHIFT]! + offset;
  }

  /** The first instruction whose address is at least `address` (`count` when none is). */
  lowerBound(address: number): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.addressAt(mid) < address) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Instruction `i`'s target (direct transfer) or referenced address, or NaN when it has neither. */
  value(i: number): number {
    const w = i >>> 5;
    const word = this.hasValue[w]!;
    const bit = 1 << (i & 31);
    if ((word & bit) === 0) return Number.NaN;
    const at = this.valueRank[w]! + popcount(word & (bit - 1));
    const value = this.values[at]!;
    return value === WIDE && this.values instanceof Uint32Array ? this.wide.get(at)! : value;
  }

  /** The target of instruction `i` when it is a direct transfer, else NaN. */
  target(i: number): number {
    return direct(this.kind[i]! & FLOW_MASK) ? this.value(i) : Number.NaN;
  }

  /** The address instruction `i` references (see `refKind`), or NaN. */
  ref(i: number): number {
    return direct(this.kind[i]! & FLOW_MASK) ? Number.NaN : this.value(i);
  }

  /** A cursor over the instructions that have a value, in ascending order (see {@link ValueCursor}). */
  valueCursor(): ValueCursor {
    return new ValueCursor(this.hasValue, this.values, this.wide);
  }

  /** Bytes held by the table's columns for its `count` instructions (what stays in memory). */
  get byteLength(): number {
    const words = Math.ceil(this.count / 32);
    const blocks = Math.ceil(this.count / (1 << BLOCK_SHIFT));
    return (
      this.count * 3 +
      blocks * this.blockAddress.BYTES_PER_ELEMENT +
      this.far.size * 16 +
      words * 8 +
      this.values.length * this.values.BYTES_PER_ELEMENT +
      this.wide.size * 16
    );
  }
}

/**
 * Walks the instructions of an {@link InstructionTable} that have a value (a direct transfer's target
 * or a referenced address), in ascending order, reading the values in the order they are stored: a
 * pass that needs only those instructions visits about a third of the table, with no bitmap rank per
 * instruction. Each {@link ValueCursor.next} moves to the next one and sets `index` and `value`.
 */
export class ValueCursor {
  /** The current instruction's number (-1 once the walk is over). */
  index = -1;
  /** The current instruction's value (its target for a direct transfer, else the address it references). */
  value = Number.NaN;
  private word = -1;
  /** The bits of the current bitmap word not visited yet (as a 32-bit integer). */
  private pending = 0;
  private at = 0;

  constructor(
    private readonly hasValue: Uint32Array,
    private readonly values: ValueColumn,
    private readonly wide: ReadonlyMap<number, number>,
  ) {
    // NaN, and values of 2^30 or more, would otherwise make `value` a field of boxed doubles.
    referenceFields(this, 'value');
  }

  /** Moves to the next instruction that has a value; false (and `index` -1) when there is none. */
  next(): boolean {
    // The end of the walk stores its -1 and NaN through the same two stores as every step: a store
    // reached only at the end would have no type feedback yet, and V8 would drop the optimized code of
    // this method (and of the loop it is inlined in) there, once per walk.
    let index = -1;
    let value = Number.NaN;
    while (this.pending === 0 && this.word + 1 < this.hasValue.length) {
      this.word += 1;
      this.pending = this.hasValue[this.word]! | 0;
    }
    if (this.pending !== 0) {
      const lowest = this.pending & -this.pending;
      this.pending ^= lowest;
      index = this.word * 32 + 31 - Math.clz32(lowest);
      const at = this.at++;
      const stored = this.values[at]!;
      value = stored === WIDE && this.values instanceof Uint32Array ? this.wide.get(at)! : stored;
    }
    this.index = index;
    this.value = value;
    return index >= 0;
  }
}

/** Typed arrays of `capacity`, grown by doubling with their contents copied. */
export function grown<T extends Float64Array | Uint32Array | Uint8Array>(old: T, capacity: number): T {
  const next = new (old.constructor as new (n: number) => T)(capacity);
  next.set(old);
  return next;
}

/**
 * The columns of an {@link InstructionTable} while it is decoded: typed, doubled when full, with no
 * per-instruction allocation and no element-kind transitions.
 */
export class Columns {
  count = 0;
  private valueCount = 0;
  private blockAddress: AddressColumn;
  private offset: Uint8Array;
  /** Addresses {@link FAR} or more bytes after their block's first, by instruction number. */
  private readonly far = new Map<number, number>();
  private size: Uint8Array;
  private kind: Uint8Array;
  private hasValue: Uint32Array;
  private valueRank: Uint32Array;
  private values: ValueColumn;
  /** Values that do not fit a 32-bit value column, by their place in it. */
  private readonly wide = new Map<number, number>();

  /** Columns for about `capacity` instructions; 32-bit addresses and values when `narrow`. */
  constructor(capacity: number, narrow: boolean) {
    const n = Math.max(32, capacity);
    const blocks = Math.ceil(n / (1 << BLOCK_SHIFT));
    this.blockAddress = narrow ? new Uint32Array(blocks) : new Float64Array(blocks);
    this.offset = new Uint8Array(n);
    this.size = new Uint8Array(n);
    this.kind = new Uint8Array(n);
    this.hasValue = new Uint32Array(Math.ceil(n / 32));
    this.valueRank = new Uint32Array(Math.ceil(n / 32));
    // Typical code has a value on about a third of its instructions.
    const values = Math.max(32, Math.ceil(n / 2));
    this.values = narrow ? new Uint32Array(values) : new Float64Array(values);
  }

  /** Appends one instruction (in address order). */
  push(address: number, size: number, flow: number, target: number, ref: number, refKind: number): void {
    if (this.count === this.offset.length) this.grow();
    const i = this.count;
    if ((i & ((1 << BLOCK_SHIFT) - 1)) === 0) {
      this.blockAddress[i >>> BLOCK_SHIFT] = address;
      // A first address that the column cannot hold exactly is kept aside (and its block with it).
      if (this.blockAddress[i >>> BLOCK_SHIFT] === address) this.offset[i] = 0;
      else {
        this.offset[i] = FAR;
        this.far.set(i, address);
      }
    } else {
      const offset = address - this.blockAddress[i >>> BLOCK_SHIFT]!;
      if (offset >= 0 && offset < FAR && this.offset[i & ~((1 << BLOCK_SHIFT) - 1)] !== FAR) this.offset[i] = offset;
      else {
        this.offset[i] = FAR;
        this.far.set(i, address);
      }
    }
    this.size[i] = size;
    if ((i & 31) === 0) this.valueRank[i >>> 5] = this.valueCount;
    // A direct transfer keeps its target; any other instruction its reference (see InstructionTable).
    let value: number;
    if (direct(flow)) {
      value = addressOrNaN(target);
      this.kind[i] = flow;
    } else {
      value = addressOrNaN(ref);
      this.kind[i] = value === value ? flow | (refKind << REF_KIND_SHIFT) : flow;
    }
    if (value === value) {
      if (this.valueCount === this.values.length) this.values = grown(this.values, this.values.length * 2);
      const at = this.valueCount++;
      if (value >= WIDE && this.values instanceof Uint32Array) {
        this.values[at] = WIDE;
        this.wide.set(at, value);
      } else this.values[at] = value;
      this.hasValue[i >>> 5]! |= 1 << (i & 31);
    }
    this.count = i + 1;
  }

  private grow(): void {
    const n = this.offset.length * 2;
    this.blockAddress = grown(this.blockAddress, Math.ceil(n / (1 << BLOCK_SHIFT)));
    this.offset = grown(this.offset, n);
    this.size = grown(this.size, n);
    this.kind = grown(this.kind, n);
    this.hasValue = grown(this.hasValue, Math.ceil(n / 32));
    this.valueRank = grown(this.valueRank, Math.ceil(n / 32));
  }

  /** The table of the instructions pushed so far. */
  table(engineDecoded: number): InstructionTable {
    const n = this.count;
    const words = Math.ceil(n / 32);
    return new InstructionTable(
      n,
      this.blockAddress.subarray(0, Math.ceil(n / (1 << BLOCK_SHIFT))),
      this.offset.subarray(0, n),
      this.far,
      this.size.subarray(0, n),
      this.kind.subarray(0, n),
      this.hasValue.subarray(0, words),
      this.valueRank.subarray(0, words),
      this.values.subarray(0, this.valueCount),
      this.wide,
      engineDecoded,
    );
  }
}

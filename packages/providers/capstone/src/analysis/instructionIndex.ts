import { CHECK_MASK } from './pace.js';
import type { Pacer } from './pace.js';
import { instructionAt } from './sweep.js';
import type { InstructionTable } from './sweep.js';
import { popcount } from './table.js';

/** Widest address span, relative to the instruction count, that a start bitmap covers. */
const BYTES_PER_INSTRUCTION = 64;
const SLACK = 0x10_0000;

/**
 * Constant-time "which instruction starts at this address" over an instruction table, for the
 * discovery passes that ask it once per instruction or data word: a bitmap of instruction starts over
 * the decoded span with a running count per 32-bit word, so an instruction's number is the count of
 * starts before it. Answers exactly as {@link instructionAt}, to which it falls back when the
 * addresses are not strictly ascending safe integers or the span is too sparse for a bitmap.
 */
export class InstructionIndex {
  /** True when the table's addresses were verified strictly ascending (the bitmap is in use). */
  readonly ascending: boolean;

  private constructor(
    private readonly table: InstructionTable,
    private readonly low: number,
    private readonly span: number,
    private readonly bits: Uint32Array | null,
    private readonly rank: Uint32Array,
  ) {
    this.ascending = bits !== null;
  }

  /** Builds the index over `table`, giving the event loop turns through `pacer` on a large table. */
  static async build(table: InstructionTable, pacer: Pacer): Promise<InstructionIndex> {
    const n = table.count;
    const low = n > 0 ? table.addressAt(0) : 0;
    const last = n > 0 ? table.addressAt(n - 1) : 0;
    const span = last - low + 1;
    const fallback = new InstructionIndex(table, low, span, null, new Uint32Array(0));
    if (n === 0 || !Number.isSafeInteger(low) || !Number.isSafeInteger(last)) return fallback;
    if (span > n * BYTES_PER_INSTRUCTION + SLACK) return fallback;
    const bits = new Uint32Array(Math.ceil(span / 32));
    let previous = -1;
    for (let i = 0; i < n; i += 1) {
      if ((i & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
      const offset = table.addressAt(i) - low;
      if (offset <= previous || offset !== Math.floor(offset)) return fallback;
      previous = offset;
      bits[offset >>> 5]! |= 1 << (offset & 31);
    }
    const rank = new Uint32Array(bits.length);
    let seen = 0;
    for (let w = 0; w < bits.length; w += 1) {
      if ((w & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
      rank[w] = seen;
      seen += popcount(bits[w]!);
    }
    return new InstructionIndex(table, low, span, bits, rank);
  }

  /** The index of the instruction starting exactly at `address`, or -1 (as {@link instructionAt}). */
  at(address: number): number {
    const bits = this.bits;
    if (bits === null) return instructionAt(this.table, address);
    const offset = address - this.low;
    if (!(offset >= 0 && offset < this.span) || !Number.isSafeInteger(address)) return -1;
    const w = offset >>> 5;
    const mask = 1 << (offset & 31);
    const word = bits[w]!;
    if ((word & mask) === 0) return -1;
    return this.rank[w]! + popcount(word & (mask - 1));
  }
}

import { SLICE } from './pace.js';
import type { Pacer } from './pace.js';
import { instructionAt } from './sweep.js';
import type { InstructionTable } from './sweep.js';
import { popcount } from './table.js';

/** What {@link markStarts} returns when the addresses do not ascend strictly as integers. */
const NOT_ASCENDING = -2;

/**
 * Sets the start bit of instructions `[from, to)` (their offset from `low`) in `bits`; `previous` is
 * the offset of the instruction before `from` (-1: none). Returns the last offset set, or
 * {@link NOT_ASCENDING}. Synchronous, so that the loop is optimised on its own.
 */
function markStarts(
  table: InstructionTable,
  from: number,
  to: number,
  low: number,
  previous: number,
  bits: Uint32Array,
): number {
  for (let i = from; i < to; i += 1) {
    const offset = table.addressAt(i) - low;
    if (offset <= previous || offset !== Math.floor(offset)) return NOT_ASCENDING;
    previous = offset;
    bits[offset >>> 5]! |= 1 << (offset & 31);
  }
  return previous;
}

/** Writes the running count of set bits before each word of `bits[from, to)` into `rank`; returns the count after `to`. */
function rankWords(bits: Uint32Array, from: number, to: number, seen: number, rank: Uint32Array): number {
  for (let w = from; w < to; w += 1) {
    rank[w] = seen;
    seen += popcount(bits[w]!);
  }
  return seen;
}

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
    for (let from = 0; from < n; from += SLICE) {
      await pacer.maybe('discovery');
      previous = markStarts(table, from, Math.min(n, from + SLICE), low, previous, bits);
      if (previous === NOT_ASCENDING) return fallback;
    }
    const rank = new Uint32Array(bits.length);
    let seen = 0;
    for (let from = 0; from < bits.length; from += SLICE) {
      await pacer.maybe('discovery');
      seen = rankWords(bits, from, Math.min(bits.length, from + SLICE), seen, rank);
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

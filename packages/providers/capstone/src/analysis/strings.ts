import type { BinaryLayout } from '@rea/artifact';
import { Pacer, SLICE } from './pace.js';
import { grown } from './table.js';

/** One string found in a data section (as {@link StringTable.record} gives it). */
export interface StringRecord {
  address: number;
  value: string;
  encoding: 'ascii' | 'utf-16le';
  section: string;
}

/** Shortest run reported as a string. */
export const MIN_STRING = 4;
/** Upper bound on strings kept, so a data-heavy binary cannot exhaust memory. */
export const MAX_STRINGS = 500_000;

/**
 * By byte value: 1 for a character of a string (printable ASCII, tab, LF, CR); 2 for a control
 * character that C strings carry inside text (BEL, BS, VT, FF, ESC: a terminal's bell and its colour
 * and title escapes, as in "\x1b[31merror\x1b[0m"), which a string may hold but which does not count
 * towards its {@link MIN_STRING} characters; 0 for a byte that ends a run.
 */
const PRINTABLE = new Uint8Array(256);
for (let b = 0x20; b < 0x7f; b += 1) PRINTABLE[b] = 1;
PRINTABLE[0x09] = PRINTABLE[0x0a] = PRINTABLE[0x0d] = 1;
PRINTABLE[0x07] = PRINTABLE[0x08] = PRINTABLE[0x0b] = PRINTABLE[0x0c] = PRINTABLE[0x1b] = 2;

/** Whether `bytes[start, end)` (every `step`-th byte) holds at least {@link MIN_STRING} characters that count. */
function longEnough(bytes: Uint8Array, start: number, end: number, step: number): boolean {
  let counted = 0;
  for (let i = start; i < end && counted < MIN_STRING; i += step) if (PRINTABLE[bytes[i]!] === 1) counted += 1;
  return counted >= MIN_STRING;
}

/** A section's name and bytes (a view of the file: strings are decoded from it when asked for). */
interface StringSection {
  name: string;
  text: Buffer;
}

/**
 * The strings of a binary in address order, as columns: where each starts in its section and how many
 * bytes it spans, decoded only when a string is asked for. Each costs 20 bytes instead of an object
 * and its text (about 100 bytes on average), so a large binary's tens of thousands of strings stay
 * small.
 */
export class StringTable {
  constructor(
    /** How many strings the table holds. */
    readonly count: number,
    /** Each string's address, ascending (unless the search stopped at {@link MAX_STRINGS}). */
    readonly addresses: Float64Array,
    private readonly offsets: Uint32Array,
    private readonly lengths: Uint32Array,
    /** Each string's section (an index into `sections`) and encoding (1 for UTF-16LE): section * 2 + wide. */
    private readonly kinds: Uint32Array,
    private readonly sections: readonly StringSection[],
  ) {}

  /** The text of string `i`. */
  value(i: number): string {
    const section = this.sections[this.kinds[i]! >>> 1]!;
    const offset = this.offsets[i]!;
    return section.text.toString(this.kinds[i]! & 1 ? 'utf16le' : 'latin1', offset, offset + this.lengths[i]!);
  }

  /** String `i` as a record. */
  record(i: number): StringRecord {
    return {
      address: this.addresses[i]!,
      value: this.value(i),
      encoding: this.kinds[i]! & 1 ? 'utf-16le' : 'ascii',
      section: this.sections[this.kinds[i]! >>> 1]!.name,
    };
  }
}

/** The columns of a {@link StringTable} while strings are found: typed, doubled when full. */
class StringColumns {
  count = 0;
  private addresses = new Float64Array(1024);
  private offsets = new Uint32Array(1024);
  private lengths = new Uint32Array(1024);
  private kinds = new Uint32Array(1024);

  push(address: number, offset: number, length: number, kind: number): void {
    if (this.count === this.addresses.length) {
      const capacity = this.count * 2;
      this.addresses = grown(this.addresses, capacity);
      this.offsets = grown(this.offsets, capacity);
      this.lengths = grown(this.lengths, capacity);
      this.kinds = grown(this.kinds, capacity);
    }
    const i = this.count++;
    this.addresses[i] = address;
    this.offsets[i] = offset;
    this.lengths[i] = length;
    this.kinds[i] = kind;
  }

  /** The table, in address order (ties in the order found) unless `sorted` is false. */
  table(sections: readonly StringSection[], sorted: boolean): StringTable {
    const n = this.count;
    const addresses = this.addresses;
    let ascending = true;
    for (let i = 1; i < n && ascending; i += 1) ascending = addresses[i - 1]! <= addresses[i]!;
    let pick = <T extends Float64Array | Uint32Array>(column: T): T => column.slice(0, n) as T;
    if (sorted && !ascending) {
      const order = new Uint32Array(n);
      for (let i = 0; i < n; i += 1) order[i] = i;
      order.sort((a, b) => addresses[a]! - addresses[b]! || a - b);
      pick = (column) => {
        const out = new (column.constructor as new (length: number) => typeof column)(n);
        for (let i = 0; i < n; i += 1) out[i] = column[order[i]!]!;
        return out;
      };
    }
    return new StringTable(n, pick(addresses), pick(this.offsets), pick(this.lengths), pick(this.kinds), sections);
  }
}

/** What {@link scanRuns} returns once the table holds {@link MAX_STRINGS}. */
const FULL = -2;

/**
 * Scans `bytes[from, to)` for NUL-terminated runs of printable ASCII characters (and the control
 * characters of text: see {@link PRINTABLE}), at least {@link MIN_STRING} printable ones, pushing each with `address` (the section's) and `kind`: one byte each,
 * or with `wide` two (a printable byte then 0, UTF-16LE) at even offsets from `from`, ended by two
 * NUL bytes. Bytes past the section read as 0 (a `to` past its end ends the last run). `start` is
 * where the run open at `from` began (-1: none); returns where the run open at `to` began (-1: none),
 * or {@link FULL}. Synchronous, so that this loop is optimised on its own while the caller gives the
 * event loop turns between slices.
 */
function scanRuns(
  bytes: Uint8Array,
  from: number,
  to: number,
  start: number,
  wide: boolean,
  address: number,
  kind: number,
  found: StringColumns,
): number {
  const length = bytes.length;
  const step = wide ? 2 : 1;
  for (let i = from; i < to; i += step) {
    const lo = i < length ? bytes[i]! : 0;
    const hi = wide && i + 1 < length ? bytes[i + 1]! : 0;
    const character = hi === 0 ? PRINTABLE[lo]! : 0;
    // A run starts at a printable character: a control character before one (the last byte of a
    // pointer or a length, 0x08 of 0x0804a000) is not taken into the string.
    if (character === 1 || (character === 2 && start >= 0)) {
      if (start < 0) start = i;
      continue;
    }
    if (lo === 0 && hi === 0 && start >= 0 && (i - start) / step >= MIN_STRING && longEnough(bytes, start, i, step)) {
      found.push(address + start, start, i - start, kind);
      if (found.count >= MAX_STRINGS) return FULL;
    }
    start = -1;
  }
  return start;
}

/**
 * NUL-terminated printable ASCII runs (and, on PE, UTF-16LE runs) of at least {@link MIN_STRING}
 * characters in allocated, non-executable sections with file bytes. A run starts at a printable
 * character; the control characters of text (see {@link PRINTABLE}) may follow inside it.
 */
export async function findStrings(
  layout: BinaryLayout,
  signal: AbortSignal,
  pacer: Pacer = new Pacer(signal),
): Promise<{ strings: StringTable; truncated: boolean }> {
  const found = new StringColumns();
  const sections: StringSection[] = [];
  const wide = layout.format === 'pe';
  for (const section of layout.sections) {
    if (!section.flags.alloc || section.flags.execute || section.fileSize === 0 || section.address === 0) continue;
    const bytes = layout.readAt(section.address, Math.min(section.size, section.fileSize));
    if (!bytes) continue;
    // One view over the section: each string is decoded from it when asked for.
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const ascii = sections.length * 2;
    sections.push({ name: section.name, text });
    // The byte (or, for UTF-16LE, the two bytes) after the section count as a NUL terminator; UTF-16LE
    // runs are searched on PE only.
    for (const encoding of wide ? [0, 1] : [0]) {
      const end = bytes.length + 1;
      let start = -1;
      for (let from = 0; from < end; from += SLICE) {
        await pacer.maybe('strings');
        const to = Math.min(end, from + SLICE);
        start = scanRuns(bytes, from, to, start, encoding === 1, section.address, ascii + encoding, found);
        if (start === FULL) return { strings: found.table(sections, false), truncated: true };
      }
    }
  }
  return { strings: found.table(sections, true), truncated: false };
}

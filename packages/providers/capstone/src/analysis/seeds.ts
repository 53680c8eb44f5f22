import type { ProcedureSource } from '@rea/native';
import type { Pacer } from './pace.js';
import { sortedNumbersPaced } from './sortPaced.js';

/** What a procedure is: a function of the binary, an import stub, or a thunk for an import. */
export type SeedKind = 'function' | 'import' | 'thunk';

/** Procedure sources from the most to the least trusted: a seed keeps the best one offered. */
const SOURCES: readonly ProcedureSource[] = [
  'symbol',
  'export',
  'import',
  'entry',
  'unwind-info',
  'call-target',
  'code-pointer',
  'engine',
];
const RANK = new Map(SOURCES.map((s, i) => [s, i]));
const KINDS: readonly SeedKind[] = ['function', 'import', 'thunk'];
const EMPTY = -1;

/** A key's slot in a table of `2^bits` slots: a multiplicative hash of an address's two 32-bit halves. */
function hashOf(address: number, bits: number): number {
  const high = Math.floor(address / 0x1_0000_0000) | 0;
  return Math.imul((address >>> 0) ^ Math.imul(high, 0x85ebca6b), 0x9e3779b1) >>> (32 - bits);
}

/**
 * Procedure starts found by discovery, with what each was offered as (source, size, kind, name,
 * library), kept in typed columns of an open-addressing hash table: no object or map entry per seed,
 * so a binary's hundreds of thousands of seeds are neither traced by the garbage collector nor
 * rehashed in one long step of a map. A name or library is kept as an index into one list of the
 * texts the layout already holds. Same answers as a map from address to seed; no order is promised.
 */
export class SeedTable {
  private bits: number;
  private keys!: Float64Array;
  private source!: Uint8Array;
  private kind!: Uint8Array;
  private sizes!: Float64Array;
  private names!: Int32Array;
  private libraries!: Int32Array;
  private readonly texts: string[] = [];
  private sorted: Float64Array | null = null;
  /** The number of seeds. */
  count = 0;

  /**
   * A table sized for `expected` seeds (the symbols, exports and imports a layout offers), so that it
   * is not rehashed while they are offered: a rehash of hundreds of thousands of slots is one step.
   */
  constructor(expected = 0) {
    this.bits = Math.max(10, Math.ceil(Math.log2(Math.max(1, expected) * 2)));
    this.allocate();
  }

  /** Empty columns of `2^bits` slots. */
  private allocate(): void {
    const n = 1 << this.bits;
    this.keys = new Float64Array(n).fill(EMPTY);
    this.source = new Uint8Array(n);
    this.kind = new Uint8Array(n);
    this.sizes = new Float64Array(n);
    this.names = new Int32Array(n);
    this.libraries = new Int32Array(n);
  }

  private find(address: number): number {
    const mask = (1 << this.bits) - 1;
    let slot = hashOf(address, this.bits);
    for (;;) {
      const key = this.keys[slot]!;
      if (key === address || key === EMPTY) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /** The slot holding `address`, or -1. */
  slotOf(address: number): number {
    const slot = this.find(address);
    return this.keys[slot] === address ? slot : -1;
  }

  /** Whether `address` is a seed. */
  has(address: number): boolean {
    return this.keys[this.find(address)] === address;
  }

  private text(value: string | null): number {
    if (value === null) return -1;
    this.texts.push(value);
    return this.texts.length - 1;
  }

  /**
   * Offers a seed. A new address is stored as given; for a known one the better-ranked source wins
   * its source, kind and (when it has one) name, the first known size and library are kept.
   */
  offer(
    address: number,
    source: ProcedureSource,
    size: number,
    kind: SeedKind,
    name: string | null,
    library: string | null,
  ): void {
    let slot = this.find(address);
    if (this.keys[slot] !== address) {
      if ((this.count + 1) * 2 > this.keys.length) {
        this.grow();
        slot = this.find(address);
      }
      this.keys[slot] = address;
      this.source[slot] = RANK.get(source)!;
      this.kind[slot] = KINDS.indexOf(kind);
      this.sizes[slot] = size;
      this.names[slot] = this.text(name);
      this.libraries[slot] = this.text(library);
      this.count += 1;
      this.sorted = null;
      return;
    }
    const rank = RANK.get(source)!;
    const better = rank < this.source[slot]!;
    if (better) {
      if (name !== null) this.names[slot] = this.text(name);
      this.source[slot] = rank;
      this.kind[slot] = KINDS.indexOf(kind);
    } else if (this.names[slot] === -1) this.names[slot] = this.text(name);
    if (!this.sizes[slot]) this.sizes[slot] = size;
    if (this.libraries[slot] === -1) this.libraries[slot] = this.text(library);
  }

  private grow(): void {
    const { keys, source, kind, sizes, names, libraries } = this;
    this.bits += 1;
    this.allocate();
    for (let old = 0; old < keys.length; old += 1) {
      const key = keys[old]!;
      if (key === EMPTY) continue;
      const slot = this.find(key);
      this.keys[slot] = key;
      this.source[slot] = source[old]!;
      this.kind[slot] = kind[old]!;
      this.sizes[slot] = sizes[old]!;
      this.names[slot] = names[old]!;
      this.libraries[slot] = libraries[old]!;
    }
  }

  /** Seed starts in ascending order (computed once per set of seeds), with turns through `pacer`. */
  async starts(pacer: Pacer, phase: string): Promise<Float64Array> {
    if (this.sorted) return this.sorted;
    const out = new Float64Array(this.count);
    let n = 0;
    for (let slot = 0; slot < this.keys.length; slot += 1) {
      const key = this.keys[slot]!;
      if (key !== EMPTY) out[n++] = key;
    }
    this.sorted = await sortedNumbersPaced(out, pacer, phase);
    return this.sorted;
  }

  /** The size offered for the seed in `slot` (0 when none). */
  sizeAt(slot: number): number {
    return this.sizes[slot]!;
  }

  /** The source of the seed in `slot`. */
  sourceAt(slot: number): ProcedureSource {
    return SOURCES[this.source[slot]!]!;
  }

  /** The kind of the seed in `slot`. */
  kindAt(slot: number): SeedKind {
    return KINDS[this.kind[slot]!]!;
  }

  /** The name of the seed in `slot`, or null. */
  nameAt(slot: number): string | null {
    const i = this.names[slot]!;
    return i < 0 ? null : this.texts[i]!;
  }

  /** The library of the seed in `slot`, or null. */
  libraryAt(slot: number): string | null {
    const i = this.libraries[slot]!;
    return i < 0 ? null : this.texts[i]!;
  }
}

import type { BinaryLayout } from '@rea/artifact';
import { formatAddress } from '@rea/native/core';
import type { NativeName } from '@rea/native';
import type { Discovery } from './analysis/discovery.js';
import { CHECK_MASK } from './analysis/pace.js';
import type { Pacer } from './analysis/pace.js';
import { sortedNumbersPaced } from './analysis/sortPaced.js';
import { ShardedMap } from './analysis/shardedMap.js';

/** The names of an analysed binary: listed in address order, and looked up both ways. */
export interface NameIndex {
  list: NativeName[];
  /** The first name recorded at each address. */
  byAddress: ShardedMap<number, string>;
  /**
   * The first address recorded for each name. Synthesised procedure names (`sub_<hex>`) are not
   * stored: {@link addressOfName} derives them from the procedures.
   */
  byName: ShardedMap<string, number>;
}

/**
 * Collects the names of discovered procedures, symbols, exports and imports (first one wins per
 * address and per name), giving the event loop turns through `pacer`.
 */
export async function collectNames(layout: BinaryLayout, discovery: Discovery, pacer: Pacer): Promise<NameIndex> {
  // Sharded: one table of hundreds of thousands of names would hold the event loop while it rehashes.
  // The names recorded at each address: one, or a set of several (no key string built per name).
  const seen = new ShardedMap<number, string | Set<string>>();
  const out: Array<[number, NativeName]> = [];
  const byAddress = new ShardedMap<number, string>();
  const byName = new ShardedMap<string, number>();
  let steps = 0;
  // The clock is read every 64 steps: the shards of a table fill evenly, so many of them grow (and
  // rehash) within a few thousand steps of each other.
  const due = (): boolean => (++steps & 63) === 0 && pacer.due();
  const add = (address: number, name: string, kind: NativeName['kind']): void => {
    if (!name || address === 0 || !Number.isSafeInteger(address)) return;
    const prior = seen.get(address);
    if (prior === undefined) seen.set(address, name);
    else if (prior === name || (typeof prior !== 'string' && prior.has(name))) return;
    else if (typeof prior === 'string') seen.set(address, new Set([prior, name]));
    else prior.add(name);
    out.push([address, { address: formatAddress(address), name, kind }]);
    if (!byAddress.has(address)) byAddress.set(address, name);
    if (!byName.has(name)) byName.set(name, address);
  };
  for (const p of discovery.procedures) {
    if (due()) await pacer.turn('names');
    if (!p.synthetic) add(p.start, p.name, p.kind === 'import' ? 'import' : 'function');
  }
  for (const s of layout.symbols) {
    if (due()) await pacer.turn('names');
    if (s.defined)
      add(s.address, s.name, s.kind === 'function' ? 'function' : s.kind === 'object' ? 'object' : 'label');
  }
  for (const e of layout.exports) {
    if (due()) await pacer.turn('names');
    if (e.name !== null) add(e.address, e.name, 'export');
  }
  for (const i of layout.imports) {
    if (due()) await pacer.turn('names');
    if (i.address !== null) add(i.address, i.name, 'import');
  }
  return { list: await byAddressPaced(out, pacer), byAddress, byName };
}

/**
 * The names of `rows` in ascending address order, ties in row order (what a stable sort gives), with
 * turns through `pacer`: address and row number are packed into one exact double and sorted in runs
 * (a single sort of hundreds of thousands of rows held the event loop); rows whose key would not fit
 * in 53 bits take one comparator sort.
 */
async function byAddressPaced(rows: Array<[number, NativeName]>, pacer: Pacer): Promise<NativeName[]> {
  const n = rows.length;
  const scale = 2 ** Math.max(1, Math.ceil(Math.log2(n + 1)));
  const highest = rows.reduce((max, row) => Math.max(max, row[0]), 0);
  if (highest >= Number.MAX_SAFE_INTEGER / scale || rows.some((row) => row[0] < 0)) {
    await pacer.maybe('names');
    return rows.sort((a, b) => a[0] - b[0]).map((row) => row[1]);
  }
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i += 1) keys[i] = rows[i]![0] * scale + i;
  const sorted = await sortedNumbersPaced(keys, pacer, 'names');
  const list: NativeName[] = new Array<NativeName>(n);
  for (let k = 0; k < n; k += 1) {
    if ((k & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('names');
    list[k] = rows[sorted[k]! % scale]![1];
  }
  return list;
}

/**
 * The address a name stands for: a recorded name first, else the synthesised name of a discovered
 * procedure (`sub_<hex>` names exactly the procedure at that address when its name is synthesised).
 */
export function addressOfName(
  names: NameIndex,
  name: string,
  procedureAt: (address: number) => { name: string; synthetic: boolean } | null,
): number | undefined {
  const recorded = names.byName.get(name);
  if (recorded !== undefined) return recorded;
  if (!/^sub_[0-9a-f]+$/.test(name)) return undefined;
  const address = Number.parseInt(name.slice(4), 16);
  const p = Number.isSafeInteger(address) ? procedureAt(address) : null;
  return p !== null && p.synthetic && p.name === name ? address : undefined;
}

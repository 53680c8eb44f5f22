import type { BinaryLayout } from '@rea/artifact';
import { formatAddress } from '@rea/native/core';
import type { NativeName } from '@rea/native';
import type { Discovery } from './analysis/discovery.js';
import type { Pacer } from './analysis/pace.js';
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
  await pacer.maybe('names');
  out.sort((a, b) => a[0] - b[0]);
  await pacer.maybe('names');
  return { list: out.map((row) => row[1]), byAddress, byName };
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

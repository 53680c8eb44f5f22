import type { BinaryLayout } from '@rea/artifact';
import { formatAddress } from '@rea/native/core';
import type { NativeName } from '@rea/native';
import type { Discovery } from './analysis/discovery.js';
import { CHECK_MASK } from './analysis/pace.js';
import type { Pacer } from './analysis/pace.js';

/** The names of an analysed binary: listed in address order, and looked up both ways. */
export interface NameIndex {
  list: NativeName[];
  /** The first name recorded at each address. */
  byAddress: Map<number, string>;
  /**
   * The first address recorded for each name. Synthesised procedure names (`sub_<hex>`) are not
   * stored: {@link addressOfName} derives them from the procedures.
   */
  byName: Map<string, number>;
}

/**
 * Collects the names of discovered procedures, symbols, exports and imports (first one wins per
 * address and per name), giving the event loop turns through `pacer`.
 */
export async function collectNames(layout: BinaryLayout, discovery: Discovery, pacer: Pacer): Promise<NameIndex> {
  const seen = new Set<string>();
  const out: Array<[number, NativeName]> = [];
  const byAddress = new Map<number, string>();
  const byName = new Map<string, number>();
  let steps = 0;
  const add = async (address: number, name: string, kind: NativeName['kind']) => {
    if ((++steps & CHECK_MASK) === 0) await pacer.maybe('names');
    if (!name || address === 0 || !Number.isSafeInteger(address)) return;
    const key = `${address}:${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push([address, { address: formatAddress(address), name, kind }]);
    if (!byAddress.has(address)) byAddress.set(address, name);
    if (!byName.has(name)) byName.set(name, address);
  };
  for (const p of discovery.procedures)
    if (!p.synthetic) await add(p.start, p.name, p.kind === 'import' ? 'import' : 'function');
  for (const s of layout.symbols)
    if (s.defined)
      await add(s.address, s.name, s.kind === 'function' ? 'function' : s.kind === 'object' ? 'object' : 'label');
  for (const e of layout.exports) if (e.name !== null) await add(e.address, e.name, 'export');
  for (const i of layout.imports) if (i.address !== null) await add(i.address, i.name, 'import');
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

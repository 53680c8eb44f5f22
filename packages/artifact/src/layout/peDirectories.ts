import { malformed } from './reader.js';
import { DIR } from './peNames.js';
import { rvaToOffset } from './peContext.js';
import type { PeContext } from './peContext.js';
import type { LayoutExport, LayoutImport } from './types.js';

/** Upper bound on import entries across all descriptors: far above real images, bounds hostile ones. */
const MAX_IMPORTS = 1 << 20;
const MAX_DESCRIPTORS = 1 << 14;

function stringAt(context: PeContext, rva: number): string | null {
  const offset = rvaToOffset(context, rva);
  return offset === null ? null : context.reader.cstring(offset, Math.min(context.reader.length, offset + 4096));
}

/**
 * Walks one thunk array: ILT entries name the imports, IAT slots (`iatRva`) are where code calls
 * through. Ordinal imports are named `#<ordinal>`.
 */
function readThunks(context: PeContext, library: string, lookupRva: number, iatRva: number, out: LayoutImport[]): void {
  const { reader: r, is64, imageBase } = context;
  const size = is64 ? 8 : 4;
  for (let i = 0; out.length < MAX_IMPORTS; i += 1) {
    const offset = rvaToOffset(context, lookupRva + i * size);
    if (offset === null || !r.contains(offset, size)) break;
    const low = r.u32(offset);
    const high = is64 ? r.u32(offset + 4) : 0;
    if (low === 0 && high === 0) break;
    const byOrdinal = is64 ? (high & 0x80000000) !== 0 : (low & 0x80000000) !== 0;
    let name: string;
    if (byOrdinal) name = `#${low & 0xffff}`;
    else {
      const hintName = rvaToOffset(context, low & 0x7fffffff);
      if (hintName === null) throw malformed('pe', 'malformed', `Import ${i} of ${library} names an unmapped address.`);
      name = r.cstring(hintName + 2, Math.min(r.length, hintName + 2 + 4096));
    }
    out.push({ name, library, address: imageBase + iatRva + i * size });
  }
}

/** Imports (regular and delay-load) with their IAT slot addresses, and the libraries in directory order. */
export function readPeImports(context: PeContext): { imports: LayoutImport[]; libraries: string[] } {
  const { reader: r } = context;
  const imports: LayoutImport[] = [];
  const libraries: string[] = [];
  const directory = context.directories[DIR.IMPORT];
  if (directory && directory.rva !== 0) {
    const start = rvaToOffset(context, directory.rva);
    if (start === null) throw malformed('pe', 'truncated', 'The import directory lies outside the file.');
    for (let d = 0; d < MAX_DESCRIPTORS; d += 1) {
      const o = start + d * 20;
      if (!r.contains(o, 20)) throw malformed('pe', 'truncated', 'The import directory runs past the end of the file.');
      const lookup = r.u32(o);
      const nameRva = r.u32(o + 12);
      const iat = r.u32(o + 16);
      if (lookup === 0 && nameRva === 0 && iat === 0) break;
      const library = stringAt(context, nameRva);
      if (library === null)
        throw malformed('pe', 'malformed', `Import descriptor ${d} names an unmapped library name.`);
      libraries.push(library);
      readThunks(context, library, lookup !== 0 ? lookup : iat, iat, imports);
    }
  }
  const delay = context.directories[DIR.DELAY_IMPORT];
  if (delay && delay.rva !== 0) {
    const start = rvaToOffset(context, delay.rva);
    for (let d = 0; start !== null && d < MAX_DESCRIPTORS; d += 1) {
      const o = start + d * 32;
      if (!r.contains(o, 32)) break;
      const nameRva = r.u32(o + 4);
      const iat = r.u32(o + 12);
      const names = r.u32(o + 16);
      if (nameRva === 0) break;
      const library = stringAt(context, nameRva);
      if (library === null) break;
      libraries.push(library);
      readThunks(context, library, names, iat, imports);
    }
  }
  return { imports, libraries };
}

/**
 * Every export of the export address table, in ordinal order: its ordinal (biased by the directory's
 * ordinal base, as tools print it), its virtual address, its name (null when exported by ordinal only)
 * and, when the address points inside the export directory, the forwarder string ("DLL.Name" or
 * "DLL.#7"). Unused (zero) slots are skipped. Also returns the DLL name the directory records.
 */
export function readPeExports(context: PeContext): { exports: LayoutExport[]; name: string | null } {
  const { reader: r, imageBase } = context;
  const directory = context.directories[DIR.EXPORT];
  if (!directory || directory.rva === 0) return { exports: [], name: null };
  const o = rvaToOffset(context, directory.rva);
  if (o === null || !r.contains(o, 40))
    throw malformed('pe', 'truncated', 'The export directory lies outside the file.');
  const name = stringAt(context, r.u32(o + 12));
  const base = r.u32(o + 16);
  const functionCount = r.u32(o + 20);
  const nameCount = r.u32(o + 24);
  const exports: LayoutExport[] = [];
  if (functionCount === 0) return { exports, name };
  const functions = rvaToOffset(context, r.u32(o + 28));
  if (functions === null) throw malformed('pe', 'truncated', 'The export address table lies outside the file.');
  r.check(functions, functionCount * 4, 'export address table');
  // Names by address-table index; the first name listed for an index wins.
  const names = new Map<number, string>();
  if (nameCount > 0) {
    const nameTable = rvaToOffset(context, r.u32(o + 32));
    const ordinalTable = rvaToOffset(context, r.u32(o + 36));
    if (nameTable === null || ordinalTable === null) {
      throw malformed('pe', 'truncated', 'The export name tables lie outside the file.');
    }
    r.check(nameTable, nameCount * 4, 'export name table');
    r.check(ordinalTable, nameCount * 2, 'export ordinal table');
    for (let i = 0; i < nameCount; i += 1) {
      const index = r.u16(ordinalTable + i * 2);
      if (index >= functionCount || names.has(index)) continue;
      const text = stringAt(context, r.u32(nameTable + i * 4));
      if (text !== null) names.set(index, text);
    }
  }
  const inDirectory = (rva: number): boolean => rva >= directory.rva && rva < directory.rva + directory.size;
  for (let index = 0; index < functionCount; index += 1) {
    const rva = r.u32(functions + index * 4);
    if (rva === 0) continue;
    exports.push({
      name: names.get(index) ?? null,
      address: imageBase + rva,
      ordinal: (base + index) >>> 0,
      forwarder: inDirectory(rva) ? stringAt(context, rva) : null,
    });
  }
  return { exports, name };
}

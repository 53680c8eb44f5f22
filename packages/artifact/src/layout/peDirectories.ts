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

/** Named exports with their virtual addresses, and the DLL name the export directory records. */
export function readPeExports(context: PeContext): { exports: LayoutExport[]; name: string | null } {
  const { reader: r, imageBase } = context;
  const directory = context.directories[DIR.EXPORT];
  if (!directory || directory.rva === 0) return { exports: [], name: null };
  const o = rvaToOffset(context, directory.rva);
  if (o === null || !r.contains(o, 40))
    throw malformed('pe', 'truncated', 'The export directory lies outside the file.');
  const name = stringAt(context, r.u32(o + 12));
  const functionCount = r.u32(o + 20);
  const nameCount = r.u32(o + 24);
  const functions = rvaToOffset(context, r.u32(o + 28));
  const names = rvaToOffset(context, r.u32(o + 32));
  const ordinals = rvaToOffset(context, r.u32(o + 36));
  const exports: LayoutExport[] = [];
  if (nameCount === 0) return { exports, name };
  if (functions === null || names === null || ordinals === null) {
    throw malformed('pe', 'truncated', 'The export tables lie outside the file.');
  }
  r.check(names, nameCount * 4, 'export name table');
  r.check(ordinals, nameCount * 2, 'export ordinal table');
  r.check(functions, functionCount * 4, 'export address table');
  for (let i = 0; i < nameCount; i += 1) {
    const ordinal = r.u16(ordinals + i * 2);
    if (ordinal >= functionCount) continue;
    const text = stringAt(context, r.u32(names + i * 4));
    if (text === null) continue;
    exports.push({ name: text, address: imageBase + r.u32(functions + ordinal * 4) });
  }
  return { exports, name };
}

import { malformed } from './reader.js';
import type { MachOContext } from './machoContext.js';
import type { LayoutImport, LayoutSymbol } from './types.js';
import { CHECK_EVERY } from './cooperative.js';
import type { Work } from './cooperative.js';

const N_STAB = 0xe0;
const N_TYPE = 0x0e;
const N_EXT = 0x01;
const N_UNDF = 0x0;
const N_SECT = 0xe;
const N_WEAK_REF = 0x40;
const N_WEAK_DEF = 0x80;
const S_ATTR_PURE_INSTRUCTIONS = 0x80000000;
const S_ATTR_SOME_INSTRUCTIONS = 0x400;
const INDIRECT_SYMBOL_LOCAL = 0x80000000;
const INDIRECT_SYMBOL_ABS = 0x40000000;

/** A symbol with the Mach-O fields imports need. */
export interface MachOSymbol extends LayoutSymbol {
  libraryOrdinal: number;
}

/** The nlist symbol table (debugging stabs excluded), in table order. */
export function* readMachOSymbols(context: MachOContext): Work<MachOSymbol[]> {
  const { reader: r, is64, symtab, sections } = context;
  const out: MachOSymbol[] = [];
  if (!symtab || symtab.nsyms === 0) return out;
  const entry = is64 ? 16 : 12;
  r.check(symtab.symoff, symtab.nsyms * entry, 'symbol table');
  r.check(symtab.stroff, symtab.strsize, 'string table');
  const strEnd = symtab.stroff + symtab.strsize;
  for (let i = 0; i < symtab.nsyms; i += 1) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1) yield;
    const o = symtab.symoff + i * entry;
    const strx = r.u32(o);
    const type = r.u8(o + 4);
    const sect = r.u8(o + 5);
    const desc = r.u16(o + 6);
    const value = is64 ? r.u64(o + 8, 'symbol value') : r.u32(o + 8);
    if ((type & N_STAB) !== 0) continue;
    const kindBits = type & N_TYPE;
    const section = kindBits === N_SECT ? sections[sect - 1] : undefined;
    const code = section ? (section.flags & (S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS)) !== 0 : false;
    const external = (type & N_EXT) !== 0;
    const defined = kindBits !== N_UNDF;
    out.push({
      name: strx === 0 ? '' : r.cstring(symtab.stroff + strx, strEnd),
      address: value,
      size: 0,
      kind: section ? (code ? 'function' : 'object') : 'other',
      binding: !external ? 'local' : (desc & (defined ? N_WEAK_DEF : N_WEAK_REF)) !== 0 ? 'weak' : 'global',
      defined,
      source: 'symtab',
      libraryOrdinal: (desc >> 8) & 0xff,
    });
  }
  return out;
}

/**
 * Imports (undefined external symbols) with the `__stubs` entry that calls each one, found through
 * the indirect symbol table, and the library named by the two-level namespace ordinal.
 */
export function* readMachOImports(context: MachOContext): Work<LayoutImport[]> {
  const { reader: r, symtab, indirect } = context;
  const entry = context.is64 ? 16 : 12;
  const stubs = new Map<number, number>();
  if (indirect && symtab) {
    r.check(indirect.offset, indirect.count * 4, 'indirect symbol table');
    for (const section of context.sections) {
      if ((section.flags & 0xff) !== 8 || section.reserved2 === 0) continue; // S_SYMBOL_STUBS
      const count = Math.floor(section.size / section.reserved2);
      for (let i = 0; i < count; i += 1) {
        const slot = section.reserved1 + i;
        if (slot >= indirect.count)
          throw malformed('macho', 'malformed', `Stub ${i} of ${section.name} has no indirect symbol.`);
        const index = r.u32(indirect.offset + slot * 4);
        if ((index & (INDIRECT_SYMBOL_LOCAL | INDIRECT_SYMBOL_ABS)) !== 0 || index >= symtab.nsyms) continue;
        if (!stubs.has(index)) stubs.set(index, section.address + i * section.reserved2);
      }
    }
  }
  const imports: LayoutImport[] = [];
  if (!symtab) return imports;
  for (let i = 0; i < symtab.nsyms; i += 1) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1) yield;
    const o = symtab.symoff + i * entry;
    const type = r.u8(o + 4);
    if ((type & N_STAB) !== 0 || (type & N_TYPE) !== N_UNDF || (type & N_EXT) === 0) continue;
    const ordinal = (r.u16(o + 6) >> 8) & 0xff;
    const strx = r.u32(o);
    imports.push({
      name: r.cstring(symtab.stroff + strx, symtab.stroff + symtab.strsize),
      // 1..n name a dylib; 0 (self), 0xfe (main executable), 0xff (flat lookup) name none.
      library: ordinal >= 1 && ordinal <= context.dylibs.length ? context.dylibs[ordinal - 1]! : null,
      address: stubs.get(i) ?? null,
    });
  }
  return imports;
}

import type { PeContext } from './peContext.js';
import type { LayoutSymbol } from './types.js';
import { CHECK_EVERY } from './cooperative.js';
import type { Work } from './cooperative.js';

const IMAGE_SCN_MEM_EXECUTE = 0x20000000;

/**
 * The COFF symbol table some images keep (mingw-w64 leaves it unless stripped). Values of symbols in
 * a section are section-relative and become virtual addresses here; auxiliary records are skipped.
 */
export function* readCoffSymbols(context: PeContext): Work<LayoutSymbol[]> {
  const { reader: r, symbolTable, symbolCount, sections, imageBase } = context;
  const out: LayoutSymbol[] = [];
  if (symbolTable === 0 || symbolCount === 0 || !r.contains(symbolTable, symbolCount * 18)) return out;
  const strings = symbolTable + symbolCount * 18;
  for (let i = 0; i < symbolCount; i += 1) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1) yield;
    const o = symbolTable + i * 18;
    const name = r.u32(o) === 0 ? r.cstring(strings + r.u32(o + 4)) : r.fixedString(o, 8);
    const value = r.u32(o + 8);
    const sectionNumber = r.u16(o + 12);
    const type = r.u16(o + 14);
    const storage = r.u8(o + 16);
    const aux = r.u8(o + 17);
    i += aux;
    // 0 undefined, 0xffff absolute, 0xfffe debug; positive numbers are 1-based section indices.
    const section = sectionNumber > 0 && sectionNumber < 0xfffe ? sections[sectionNumber - 1] : undefined;
    const isFunction = (type & 0x30) === 0x20;
    const isSectionSymbol = storage === 3 && aux > 0 && value === 0;
    out.push({
      name,
      address: section ? imageBase + section.rva + value : value,
      size: 0,
      kind: isFunction
        ? 'function'
        : section &&
            !isSectionSymbol &&
            (storage === 2 || storage === 3) &&
            (section.characteristics & IMAGE_SCN_MEM_EXECUTE) === 0
          ? 'object'
          : 'other',
      binding: storage === 2 ? 'global' : storage === 105 ? 'weak' : 'local',
      defined: sectionNumber !== 0,
      source: 'symtab',
    });
  }
  return out;
}

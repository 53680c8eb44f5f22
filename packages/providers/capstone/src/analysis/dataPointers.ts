import type { BinaryLayout, LayoutSection } from '@rea/artifact';

/**
 * The ELF section types whose words are the program's own data. Relocation, symbol, hash and dynamic
 * tables hold addresses too (a relocation's addend is the address it makes), but as the loader's
 * bookkeeping, not as pointers of the program. Other formats' sections are taken as they are.
 */
const ELF_DATA = new Set(['SHT_PROGBITS', 'SHT_INIT_ARRAY', 'SHT_FINI_ARRAY', 'SHT_PREINIT_ARRAY']);

/** DWARF section names: `.debug_*` and `.zdebug_*` (ELF, PE) and the `__DWARF` segment (Mach-O). */
const DEBUG_SECTION = /^(?:\.z?debug_|__DWARF,)/;

/**
 * Whether a section holds debugging information. A PE keeps its DWARF sections (`.debug_info`,
 * `.debug_frame`, …) mapped like data, but the addresses there describe the code (where a function or
 * a line range ends, often on the padding byte after a function): no pointer of the program is there.
 */
export function isDebugSection(section: LayoutSection): boolean {
  return DEBUG_SECTION.test(section.name);
}

/** Most places in data reported as holding one address (a value that common is no pointer to name). */
export const MAX_DATA_POINTERS = 4096;

/**
 * The addresses of the naturally aligned pointer-sized words of the binary's data that hold `address`:
 * function tables, `.init_array`, vtables, arrays of string pointers. Read from the file's bytes of its
 * allocated, non-executable data sections (see {@link ELF_DATA}; no debugging information), in address order, at most {@link MAX_DATA_POINTERS}. A position-
 * independent binary holds there what its relative relocations add (GNU ld writes the addend in place),
 * the address as the binary's own addresses give it; a pointer left for the loader to fill alone (a GOT
 * slot of an import) holds no address and is not found.
 */
export function dataPointersTo(layout: BinaryLayout, address: number): number[] {
  const size = layout.bits === 64 ? 8 : 4;
  if (!Number.isSafeInteger(address) || address <= 0 || (size === 4 && address > 0xffffffff)) return [];
  const little = layout.endianness === 'little';
  const low = address % 0x100000000;
  const high = Math.floor(address / 0x100000000);
  const found: number[] = [];
  for (const section of layout.sections) {
    if (!section.flags.alloc || section.flags.execute || section.fileSize === 0 || section.address === 0) continue;
    if ((section.type.startsWith('SHT_') && !ELF_DATA.has(section.type)) || isDebugSection(section)) continue;
    const bytes = layout.readAt(section.address, Math.min(section.size, section.fileSize));
    if (!bytes) continue;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // The first naturally aligned word of the section.
    for (let at = (size - (section.address % size)) % size; at + size <= bytes.length; at += size) {
      const first = view.getUint32(at, little);
      const matches =
        size === 4
          ? first === low
          : little
            ? first === low && view.getUint32(at + 4, true) === high
            : first === high && view.getUint32(at + 4, false) === low;
      if (!matches) continue;
      found.push(section.address + at);
      if (found.length === MAX_DATA_POINTERS) return found;
    }
  }
  return found.sort((a, b) => a - b);
}

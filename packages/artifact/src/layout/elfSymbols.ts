import { cstringIn, malformed } from './reader.js';
import { DT, PT, SHT } from './elfNames.js';
import type { ElfContext, ElfSectionHeader } from './elfContext.js';
import type { LayoutSymbol } from './types.js';
import { CHECK_EVERY } from './cooperative.js';
import type { Work } from './cooperative.js';

const KINDS: Array<LayoutSymbol['kind']> = ['other', 'object', 'function'];

function bindingOf(value: number): LayoutSymbol['binding'] {
  if (value === 0) return 'local';
  if (value === 2) return 'weak';
  return 'global'; // STB_GLOBAL and STB_GNU_UNIQUE
}

function* readTable(
  context: ElfContext,
  table: ElfSectionHeader,
  source: 'symtab' | 'dynsym',
  out: LayoutSymbol[],
): Work<void> {
  const { reader: r, is64, sections } = context;
  const entsize = table.entsize || (is64 ? 24 : 16);
  if (entsize < (is64 ? 24 : 16))
    throw malformed('elf', 'malformed', `Symbol table ${table.name} has ${entsize}-byte entries.`);
  const tableRegion = r.region(table.offset, table.size, `symbol table ${table.name}`);
  const strings = sections[table.link];
  if (!strings) throw malformed('elf', 'malformed', `Symbol table ${table.name} links to a missing string table.`);
  const strStart = strings.offset;
  const strEnd = strings.offset + strings.size;
  const strRegion = strings.size > 0 ? r.region(strStart, strings.size, `string table ${strings.name}`) : null;
  const count = Math.floor(table.size / entsize);
  const little = r.little;
  const { view, bytes } = tableRegion;
  const base = tableRegion.base;
  const lo = little ? 0 : 4;
  const hi = little ? 4 : 0;
  const wide = (o: number, what: string): number => {
    const high = view.getUint32(o + hi, little);
    if (high > 0x1fffff) {
      throw malformed(
        'elf',
        'value-out-of-range',
        `A symbol ${what} exceeds the largest exactly representable number.`,
      );
    }
    return high * 0x1_0000_0000 + view.getUint32(o + lo, little);
  };
  const nameAt = (offset: number): string =>
    strRegion && offset < strings.size ? cstringIn(strRegion, strStart + offset, strEnd) : '';
  // Entry 0 is the reserved null symbol.
  for (let i = 1; i < count; i += 1) {
    if (i % CHECK_EVERY === 0) yield;
    const o = table.offset + i * entsize - base;
    const nameOffset = view.getUint32(o, little);
    let info: number;
    let shndx: number;
    let value: number;
    let size: number;
    if (is64) {
      info = bytes[o + 4]!;
      shndx = view.getUint16(o + 6, little);
      value = wide(o + 8, 'value');
      size = wide(o + 16, 'size');
    } else {
      value = view.getUint32(o + 4, little);
      size = view.getUint32(o + 8, little);
      info = bytes[o + 12]!;
      shndx = view.getUint16(o + 14, little);
    }
    const type = info & 0xf;
    // A section symbol is named after its section (as readelf and llvm-readobj show it).
    const name = nameOffset !== 0 ? nameAt(nameOffset) : type === 3 ? (sections[shndx]?.name ?? '') : '';
    out.push({
      name,
      address: value,
      size,
      // STT_NOTYPE 0, OBJECT 1, FUNC 2, GNU_IFUNC 10 (an indirect function is still a function); TLS 6 is data.
      kind: type === 10 ? 'function' : type === 6 ? 'object' : (KINDS[type] ?? 'other'),
      binding: bindingOf(info >> 4),
      defined: shndx !== 0,
      source,
    });
  }
}

/** Every symbol of `.symtab` and `.dynsym` (the reserved null entries excluded), in table order. */
export function* readElfSymbols(context: ElfContext): Work<LayoutSymbol[]> {
  const out: LayoutSymbol[] = [];
  for (const section of context.sections) {
    if (section.type === SHT.SYMTAB) yield* readTable(context, section, 'symtab', out);
  }
  for (const section of context.sections) {
    if (section.type === SHT.DYNSYM) yield* readTable(context, section, 'dynsym', out);
  }
  return out;
}

/** What the dynamic section says. */
export interface ElfDynamic {
  needed: string[];
  soname: string | null;
  rpath: string[];
  runpath: string[];
  bindNow: boolean;
  pieFlag: boolean;
  /** A DT_DEBUG entry: the slot linkers give executables (PIE or not) for debuggers, never shared objects. */
  debug: boolean;
  present: boolean;
}

/** Maps a virtual address to a file offset through the PT_LOAD segments, or null. */
export function elfAddressToOffset(context: ElfContext, address: number): number | null {
  for (const p of context.programs) {
    if (p.type === PT.LOAD && address >= p.address && address < p.address + p.fileSize)
      return p.offset + (address - p.address);
  }
  return null;
}

/** Reads the dynamic section (from its section header, or PT_DYNAMIC when sections are stripped). */
export function readElfDynamic(context: ElfContext): ElfDynamic {
  const { reader: r, is64 } = context;
  const result: ElfDynamic = {
    needed: [],
    soname: null,
    rpath: [],
    runpath: [],
    bindNow: false,
    pieFlag: false,
    debug: false,
    present: false,
  };
  const section = context.sections.find((s) => s.type === SHT.DYNAMIC);
  const program = context.programs.find((p) => p.type === PT.DYNAMIC);
  const offset = section?.offset ?? program?.offset;
  const size = section?.size ?? program?.fileSize;
  if (offset === undefined || size === undefined) return result;
  r.check(offset, size, 'dynamic section');
  result.present = true;
  const entry = is64 ? 16 : 8;
  const entries: Array<[number, number]> = [];
  let strtabAddress: number | null = null;
  for (let o = offset; o + entry <= offset + size; o += entry) {
    const tag = is64 ? r.u64(o, 'dynamic tag') : r.u32(o);
    if (tag === DT.NULL) break;
    // d_val may be a full 64-bit value for processor tags; only keep values REA uses.
    const value = is64 ? (r.u32(o + (r.little ? 12 : 8)) > 0x1fffff ? -1 : r.u64(o + 8)) : r.u32(o + 4);
    if (tag === DT.STRTAB) strtabAddress = value;
    entries.push([tag, value]);
  }
  let strings: { start: number; end: number } | null = null;
  const linked = section ? context.sections[section.link] : undefined;
  if (linked && linked.type === SHT.STRTAB && r.contains(linked.offset, linked.size)) {
    strings = { start: linked.offset, end: linked.offset + linked.size };
  } else if (strtabAddress !== null) {
    const start = elfAddressToOffset(context, strtabAddress);
    if (start !== null) strings = { start, end: r.length };
  }
  const text = (value: number): string | null =>
    strings && value >= 0 ? r.cstring(strings.start + value, strings.end) : null;
  for (const [tag, value] of entries) {
    if (tag === DT.NEEDED) {
      const name = text(value);
      if (name !== null) result.needed.push(name);
    } else if (tag === DT.SONAME) result.soname = text(value);
    else if (tag === DT.RPATH) result.rpath.push(...(text(value) ?? '').split(':').filter(Boolean));
    else if (tag === DT.RUNPATH) result.runpath.push(...(text(value) ?? '').split(':').filter(Boolean));
    else if (tag === DT.BIND_NOW) result.bindNow = true;
    else if (tag === DT.DEBUG) result.debug = true;
    else if (tag === DT.FLAGS && value >= 0 && (value & 8) !== 0) result.bindNow = true;
    else if (tag === DT.FLAGS_1 && value >= 0) {
      if ((value & 1) !== 0) result.bindNow = true;
      if ((value & 0x08000000) !== 0) result.pieFlag = true;
    }
  }
  return result;
}

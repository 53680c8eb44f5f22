import { ByteReader, malformed, safeSum } from './reader.js';
import { elfFileType, elfMachine, elfOsAbi, elfSectionType, elfSegmentType, PT, SHT } from './elfNames.js';
import { readElfDynamic, readElfSymbols } from './elfSymbols.js';
import { resolveElfPlt } from './elfPlt.js';
import { readElfImportLibraries } from './elfVersions.js';
import { elfMitigations } from './elfMitigations.js';
import { createReadAt } from './mapping.js';
import type { ByteSource } from './source.js';
import { CHECK_EVERY } from './cooperative.js';
import type { Work } from './cooperative.js';
import type { ElfContext, ElfProgramHeader, ElfSectionHeader } from './elfContext.js';
import type { BinaryLayout, LayoutImport, LayoutSection, LayoutSegment, LayoutExport } from './types.js';

const SHF_WRITE = 1;
const SHF_ALLOC = 2;
const SHF_EXECINSTR = 4;
/** Hard ceiling on table entries, far above real binaries (libLLVM has about 31 sections). */
const MAX_TABLE_ENTRIES = 1 << 20;

function readProgramHeaders(r: ByteReader, is64: boolean, phoff: number, phnum: number, phentsize: number) {
  if (phnum === 0) return [];
  if (phentsize < (is64 ? 56 : 32))
    throw malformed('elf', 'malformed', `Program header entries are ${phentsize} bytes, too small.`);
  if (phnum > MAX_TABLE_ENTRIES)
    throw malformed('elf', 'malformed', `The program header count ${phnum} is implausible.`);
  r.check(phoff, phnum * phentsize, 'program header table');
  const out: ElfProgramHeader[] = [];
  for (let i = 0; i < phnum; i += 1) {
    const o = phoff + i * phentsize;
    if (is64) {
      out.push({
        type: r.u32(o),
        flags: r.u32(o + 4),
        offset: r.u64(o + 8, 'segment offset'),
        address: r.u64(o + 16, 'segment address'),
        fileSize: r.u64(o + 32, 'segment size'),
        memorySize: r.u64(o + 40, 'segment size'),
      });
    } else {
      out.push({
        type: r.u32(o),
        offset: r.u32(o + 4),
        address: r.u32(o + 8),
        fileSize: r.u32(o + 16),
        memorySize: r.u32(o + 20),
        flags: r.u32(o + 24),
      });
    }
  }
  return out;
}

function readSectionHeaders(
  r: ByteReader,
  is64: boolean,
  shoff: number,
  shnumField: number,
  shentsize: number,
  shstrndxField: number,
) {
  if (shoff === 0) return [];
  const minimum = is64 ? 64 : 40;
  if (shentsize < minimum)
    throw malformed('elf', 'malformed', `Section header entries are ${shentsize} bytes, too small.`);
  r.check(shoff, shentsize, 'section header table');
  // Extended numbering: section 0 holds the real count (sh_size) and string-table index (sh_link).
  const shnum = shnumField === 0 ? r.word(shoff + (is64 ? 32 : 20), is64) : shnumField;
  const shstrndx = shstrndxField === 0xffff ? r.u32(shoff + (is64 ? 40 : 24)) : shstrndxField;
  if (shnum > MAX_TABLE_ENTRIES) throw malformed('elf', 'malformed', `The section count ${shnum} is implausible.`);
  r.check(shoff, shnum * shentsize, 'section header table');
  const raw: ElfSectionHeader[] = [];
  for (let i = 0; i < shnum; i += 1) {
    const o = shoff + i * shentsize;
    raw.push(
      is64
        ? {
            index: i,
            name: String(r.u32(o)),
            type: r.u32(o + 4),
            flags: r.u64(o + 8, 'section flags'),
            address: r.u64(o + 16, 'section address'),
            offset: r.u64(o + 24, 'section offset'),
            size: r.u64(o + 32, 'section size'),
            link: r.u32(o + 40),
            info: r.u32(o + 44),
            entsize: r.u64(o + 56, 'section entry size'),
          }
        : {
            index: i,
            name: String(r.u32(o)),
            type: r.u32(o + 4),
            flags: r.u32(o + 8),
            address: r.u32(o + 12),
            offset: r.u32(o + 16),
            size: r.u32(o + 20),
            link: r.u32(o + 24),
            info: r.u32(o + 28),
            entsize: r.u32(o + 36),
          },
    );
  }
  const strtab = shstrndx !== 0 ? raw[shstrndx] : undefined;
  if (shstrndx !== 0 && !strtab)
    throw malformed('elf', 'malformed', `The section name table index ${shstrndx} is out of range.`);
  if (strtab && strtab.type !== SHT.NOBITS) r.check(strtab.offset, strtab.size, 'section name table');
  for (const section of raw) {
    section.name = strtab ? r.cstring(strtab.offset + Number(section.name), strtab.offset + strtab.size) : '';
  }
  return raw;
}

/** Parses an ELF file (32/64-bit, either byte order). Throws `unsupported_target` for lying headers. */
export function* parseElf(source: ByteSource): Work<BinaryLayout> {
  if (source.length < 16) throw malformed('elf', 'truncated', 'The ELF identification is truncated.');
  const ident = new ByteReader(source, true, 'elf');
  const elfClass = ident.u8(4);
  const data = ident.u8(5);
  if (elfClass !== 1 && elfClass !== 2) throw malformed('elf', 'malformed', `Unknown ELF class ${elfClass}.`);
  if (data !== 1 && data !== 2) throw malformed('elf', 'malformed', `Unknown ELF data encoding ${data}.`);
  const is64 = elfClass === 2;
  const r = new ByteReader(source, data === 1, 'elf');
  r.check(0, is64 ? 64 : 52, 'ELF header');
  const fileType = r.u16(16);
  const machineValue = r.u16(18);
  const entryValue = r.word(24, is64, 'entry point');
  const phoff = r.word(is64 ? 32 : 28, is64, 'program header offset');
  const shoff = r.word(is64 ? 40 : 32, is64, 'section header offset');
  const base = is64 ? 54 : 42;
  const phentsize = r.u16(base);
  const phnumField = r.u16(base + 2);
  const shentsize = r.u16(base + 4);
  const shnumField = r.u16(base + 6);
  const shstrndxField = r.u16(base + 8);

  const sections = readSectionHeaders(r, is64, shoff, shnumField, shentsize, shstrndxField);
  // PN_XNUM: the real program header count lives in section 0's sh_info.
  const phnum = phnumField === 0xffff && sections[0] ? sections[0].info : phnumField;
  const programs = readProgramHeaders(r, is64, phoff, phnum, phentsize);
  yield 'headers';

  const context: ElfContext = { reader: r, is64, machine: machineValue, fileType, sections, programs };
  const symbols = yield* readElfSymbols(context);
  yield 'symbols';
  const dynamic = readElfDynamic(context);
  const stubs = resolveElfPlt(context);
  yield 'imports';

  const imports: LayoutImport[] = [];
  const exports: LayoutExport[] = [];
  const seenImports = new Set<string>();
  // Exports come from .dynsym; a relocatable object (no .dynsym) exports its global .symtab symbols.
  const hasDynsym = symbols.length > 0 && symbols[symbols.length - 1]!.source === 'dynsym';
  const exportSource = hasDynsym ? 'dynsym' : fileType === 1 ? 'symtab' : null;
  const libraries = readElfImportLibraries(context);
  let dynIndex = 0;
  let seen = 0;
  for (const symbol of symbols) {
    if (++seen % CHECK_EVERY === 0) yield;
    if (symbol.source === 'dynsym') dynIndex += 1; // .dynsym entry 0 (the null symbol) is not listed
    if (symbol.source === 'dynsym' && !symbol.defined && symbol.name !== '' && !seenImports.has(symbol.name)) {
      seenImports.add(symbol.name);
      imports.push({
        name: symbol.name,
        library: libraries.get(dynIndex) ?? null,
        address: stubs.get(symbol.name) ?? null,
      });
    }
    if (
      symbol.source === exportSource &&
      symbol.defined &&
      symbol.binding !== 'local' &&
      symbol.kind !== 'other' &&
      symbol.name !== ''
    ) {
      exports.push({ name: symbol.name, address: symbol.address });
    }
  }
  const layoutSections: LayoutSection[] = sections
    .slice(sections.length > 0 && sections[0]!.type === 0 ? 1 : 0)
    .map((s) => ({
      name: s.name,
      address: s.address,
      offset: s.offset,
      size: s.size,
      fileSize: s.type === SHT.NOBITS ? 0 : s.size,
      type: elfSectionType(s.type, machineValue),
      flags: {
        alloc: (s.flags & SHF_ALLOC) !== 0,
        write: (s.flags & SHF_WRITE) !== 0,
        execute: (s.flags & SHF_EXECINSTR) !== 0,
      },
    }));
  const segments: LayoutSegment[] = programs.map((p) => ({
    type: elfSegmentType(p.type, machineValue),
    address: p.address,
    offset: p.offset,
    memorySize: p.memorySize,
    fileSize: p.fileSize,
    flags: { read: (p.flags & 4) !== 0, write: (p.flags & 2) !== 0, execute: (p.flags & 1) !== 0 },
  }));
  for (const p of programs) safeSum('elf', p.address, p.memorySize, 'segment end');

  const loads = programs.filter((p) => p.type === PT.LOAD);
  const imageBase = loads.length > 0 ? Math.min(...loads.map((p) => p.address)) : 0;
  const interp = programs.find((p) => p.type === PT.INTERP);
  const interpreter =
    interp && r.contains(interp.offset, interp.fileSize)
      ? r.cstring(interp.offset, interp.offset + interp.fileSize)
      : null;
  const { machine, architecture } = elfMachine(machineValue);
  const readAt =
    loads.length > 0
      ? createReadAt(
          source,
          loads.map((p) => ({ address: p.address, offset: p.offset, memorySize: p.memorySize, fileSize: p.fileSize })),
        )
      : createReadAt(
          source,
          layoutSections
            .filter((s) => s.flags.alloc)
            .map((s) => ({ address: s.address, offset: s.offset, memorySize: s.size, fileSize: s.fileSize })),
        );
  return {
    format: 'elf',
    architecture,
    machine,
    bits: is64 ? 64 : 32,
    endianness: r.little ? 'little' : 'big',
    header: { fileType: elfFileType(fileType), abi: elfOsAbi(ident.u8(7)) },
    entry: entryValue === 0 ? null : entryValue,
    imageBase,
    sections: layoutSections,
    segments,
    symbols,
    imports,
    exports,
    libraries: dynamic.needed,
    dotnet: false,
    mitigations: yield* elfMitigations(context, dynamic, symbols),
    linkage: {
      // A shared object is dynamic even with no SONAME and nothing NEEDED (ld -shared -nostdlib): its
      // dynamic section is what the loader links; a static PIE has one too, marked DF_1_PIE.
      kind:
        interpreter !== null ||
        dynamic.needed.length > 0 ||
        dynamic.soname !== null ||
        (fileType === 3 && dynamic.present && !dynamic.pieFlag)
          ? 'dynamic'
          : 'static',
      interpreter,
      soname: dynamic.soname,
      rpath: dynamic.rpath,
      runpath: dynamic.runpath,
    },
    readAt,
  };
}

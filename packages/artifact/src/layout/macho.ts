import type { Work } from './cooperative.js';
import { ByteReader, malformed, safeSum } from './reader.js';
import { isZeroFill, LC, machoCpu, machoFileType, machoSectionType, MH } from './machoNames.js';
import { readMachOImports, readMachOSymbols } from './machoSymbols.js';
import { readExportsTrie } from './machoExports.js';
import { hasCanary, hasFortify } from './symbolHints.js';
import { createReadAt } from './mapping.js';
import type { ByteSource } from './source.js';
import type { MachOContext, MachOSection } from './machoContext.js';
import type { BinaryLayout, LayoutMitigations, LayoutSegment } from './types.js';

const MH_OBJECT = 1;
const MH_EXECUTE = 2;
/** MH_DYLIB, MH_DYLINKER, MH_BUNDLE and MH_KEXT_BUNDLE: code loaded into another program's process. */
const LIBRARY_TYPES: ReadonlySet<number> = new Set([6, 7, 8, 11]);

interface RawSegment {
  name: string;
  address: number;
  memorySize: number;
  offset: number;
  fileSize: number;
  protection: number;
}

function lcString(r: ByteReader, command: number, size: number): string {
  const at = r.u32(command + 8);
  if (at < 12 || at >= size) throw malformed('macho', 'malformed', 'A load command string lies outside its command.');
  return r.cstring(command + at, command + size);
}

/** Entry point from LC_UNIXTHREAD for x86-64 (rip) and arm64 (pc); null for other thread states. */
function threadEntry(r: ByteReader, command: number, size: number, cputype: number): number | null {
  if (size < 16) return null;
  const flavor = r.u32(command + 8);
  if (cputype === 0x01000007 && flavor === 4 && size >= 16 + 17 * 8) return r.u64(command + 16 + 16 * 8, 'entry point');
  if (cputype === 0x0100000c && flavor === 6 && size >= 16 + 33 * 8) return r.u64(command + 16 + 32 * 8, 'entry point');
  return null;
}

/** Parses a thin Mach-O file (32/64-bit, either byte order). Throws `unsupported_target` for lying headers. */
export function* parseMachO(source: ByteSource): Work<BinaryLayout> {
  if (source.length < 28) throw malformed('macho', 'truncated', 'The Mach-O header is truncated.');
  const magic = new ByteReader(source, false, 'macho').u32(0);
  if (magic !== 0xfeedface && magic !== 0xfeedfacf && magic !== 0xcefaedfe && magic !== 0xcffaedfe) {
    throw malformed('macho', 'malformed', 'The bytes do not start with a Mach-O header.');
  }
  const little = magic === 0xcefaedfe || magic === 0xcffaedfe;
  const is64 = magic === 0xfeedfacf || magic === 0xcffaedfe;
  const r = new ByteReader(source, little, 'macho');
  const headerSize = is64 ? 32 : 28;
  r.check(0, headerSize, 'Mach-O header');
  const cputype = r.u32(4);
  const fileType = r.u32(12);
  const ncmds = r.u32(16);
  const sizeofcmds = r.u32(20);
  const flags = r.u32(24);
  r.check(headerSize, sizeofcmds, 'load commands');
  if (ncmds > sizeofcmds / 8)
    throw malformed('macho', 'malformed', `${ncmds} load commands cannot fit in ${sizeofcmds} bytes.`);

  const context: MachOContext = { reader: r, is64, sections: [], symtab: null, indirect: null, dylibs: [] };
  const segments: RawSegment[] = [];
  let entryOffset: number | null = null;
  let threadAddress: number | null = null;
  let interpreter: string | null = null;
  let soname: string | null = null;
  const rpath: string[] = [];
  let codeSignature = false;
  let trie: { offset: number; size: number } | null = null;
  let at = headerSize;
  const end = headerSize + sizeofcmds;
  for (let i = 0; i < ncmds; i += 1) {
    if (at + 8 > end) throw malformed('macho', 'malformed', `Load command ${i} starts past the load command area.`);
    const cmd = r.u32(at);
    const size = r.u32(at + 4);
    if (size < 8 || at + size > end)
      throw malformed('macho', 'malformed', `Load command ${i} has an impossible size ${size}.`);
    if (cmd === LC.SEGMENT || cmd === LC.SEGMENT_64) {
      const wide = cmd === LC.SEGMENT_64;
      const fixed = wide ? 72 : 56;
      const sectionSize = wide ? 80 : 68;
      if (size < fixed) throw malformed('macho', 'malformed', `Segment command ${i} is too small.`);
      const word = (o: number) => (wide ? r.u64(at + o, 'segment field') : r.u32(at + o));
      const name = r.fixedString(at + 8, 16);
      const segment: RawSegment = {
        name,
        address: word(24),
        memorySize: word(wide ? 32 : 28),
        offset: word(wide ? 40 : 32),
        fileSize: word(wide ? 48 : 36),
        protection: r.u32(at + (wide ? 60 : 44)),
      };
      safeSum('macho', segment.address, segment.memorySize, 'segment end');
      segments.push(segment);
      const nsects = r.u32(at + (wide ? 64 : 48));
      if (fixed + nsects * sectionSize > size)
        throw malformed('macho', 'malformed', `Segment ${name} declares ${nsects} sections that do not fit.`);
      for (let s = 0; s < nsects; s += 1) {
        const o = at + fixed + s * sectionSize;
        const section: MachOSection = {
          name: r.fixedString(o, 16),
          segment: r.fixedString(o + 16, 16),
          address: wide ? r.u64(o + 32, 'section address') : r.u32(o + 32),
          size: wide ? r.u64(o + 40, 'section size') : r.u32(o + 36),
          offset: r.u32(o + (wide ? 48 : 40)),
          flags: r.u32(o + (wide ? 64 : 56)),
          reserved1: r.u32(o + (wide ? 68 : 60)),
          reserved2: r.u32(o + (wide ? 72 : 64)),
          protection: segment.protection,
        };
        safeSum('macho', section.address, section.size, 'section end');
        context.sections.push(section);
      }
    } else if (cmd === LC.SYMTAB && size >= 24) {
      context.symtab = {
        symoff: r.u32(at + 8),
        nsyms: r.u32(at + 12),
        stroff: r.u32(at + 16),
        strsize: r.u32(at + 20),
      };
    } else if (cmd === LC.DYSYMTAB && size >= 80) {
      context.indirect = { offset: r.u32(at + 56), count: r.u32(at + 60) };
    } else if (
      cmd === LC.LOAD_DYLIB ||
      cmd === LC.LOAD_WEAK_DYLIB ||
      cmd === LC.REEXPORT_DYLIB ||
      cmd === LC.LAZY_LOAD_DYLIB ||
      cmd === LC.LOAD_UPWARD_DYLIB
    ) {
      context.dylibs.push(lcString(r, at, size));
    } else if (cmd === LC.ID_DYLIB) soname = lcString(r, at, size);
    else if (cmd === LC.LOAD_DYLINKER) interpreter = lcString(r, at, size);
    else if (cmd === LC.RPATH) rpath.push(lcString(r, at, size));
    else if (cmd === LC.MAIN && size >= 24) entryOffset = r.u64(at + 8, 'entry offset');
    else if (cmd === LC.UNIXTHREAD) threadAddress = threadEntry(r, at, size, cputype);
    else if (cmd === LC.CODE_SIGNATURE) codeSignature = true;
    else if ((cmd === LC.DYLD_INFO || cmd === LC.DYLD_INFO_ONLY) && size >= 48) {
      trie = { offset: r.u32(at + 40), size: r.u32(at + 44) };
    } else if (cmd === LC.DYLD_EXPORTS_TRIE && size >= 16) trie = { offset: r.u32(at + 8), size: r.u32(at + 12) };
    at += size;
  }
  yield 'load commands';

  const symbols = yield* readMachOSymbols(context);
  const imports = yield* readMachOImports(context);
  yield 'symbols';
  const text = segments.find((s) => s.name === '__TEXT') ?? segments.find((s) => s.offset === 0 && s.fileSize > 0);
  const imageBase = text?.address ?? 0;
  // The exports trie is what dyld binds against; the symbol table is the fallback (objects, old files).
  const exports =
    (trie ? readExportsTrie(r, trie.offset, trie.size, imageBase) : null) ??
    symbols
      .filter((s) => s.defined && s.binding !== 'local' && s.kind !== 'other')
      .map((s) => ({ name: s.name, address: s.address }));
  let entry: number | null = threadAddress;
  if (entryOffset !== null && text) entry = safeSum('macho', text.address, entryOffset - text.offset, 'entry point');
  const { machine, architecture } = machoCpu(cputype);
  const layoutSegments: LayoutSegment[] = segments.map((s) => ({
    type: s.name,
    address: s.address,
    offset: s.offset,
    memorySize: s.memorySize,
    fileSize: s.fileSize,
    flags: { read: (s.protection & 1) !== 0, write: (s.protection & 2) !== 0, execute: (s.protection & 4) !== 0 },
  }));
  const object = fileType === MH_OBJECT;
  // MH_PIE is an executable's flag. A dylib, bundle, dynamic linker or kext is no executable (not a PIE),
  // though always loaded at a slid address; other kinds (core, dSYM, preload) load no code of their own.
  const library = LIBRARY_TYPES.has(fileType);
  const pie = fileType === MH_EXECUTE ? (flags & MH.PIE) !== 0 : library ? false : null;
  const nx = object ? null : (flags & MH.ALLOW_STACK_EXECUTION) === 0;
  const mitigations: LayoutMitigations = {
    nx,
    pie,
    relro: null,
    stackCanary: hasCanary(symbols, '_'),
    fortify: hasFortify(symbols, '_'),
    cfg: null,
    aslr: library ? true : pie,
    dep: nx,
    codeSignature: object ? null : codeSignature,
    highEntropyVa: null,
    safeSeh: null,
  };
  return {
    format: 'macho',
    architecture,
    machine,
    bits: is64 ? 64 : 32,
    endianness: little ? 'little' : 'big',
    header: { fileType: machoFileType(fileType), abi: null },
    entry,
    imageBase,
    sections: context.sections.map((s) => ({
      name: `${s.segment},${s.name}`,
      address: s.address,
      offset: s.offset,
      size: s.size,
      fileSize: isZeroFill(s.flags) ? 0 : s.size,
      type: machoSectionType(s.flags),
      flags: {
        alloc: true,
        write: object ? (s.flags & 0x80000400) === 0 && s.segment !== '__TEXT' : (s.protection & 2) !== 0,
        execute: (s.flags & 0x80000400) !== 0,
      },
    })),
    segments: layoutSegments,
    symbols: symbols.map(({ libraryOrdinal: _ordinal, ...symbol }) => symbol),
    imports,
    exports,
    libraries: context.dylibs,
    dotnet: false,
    mitigations,
    linkage: {
      kind: context.dylibs.length > 0 || interpreter !== null ? 'dynamic' : 'static',
      interpreter,
      soname,
      rpath,
      runpath: [],
    },
    // __PAGEZERO and other inaccessible segments map nothing readable.
    readAt: createReadAt(
      source,
      segments.filter((s) => s.protection !== 0 || object),
    ),
  };
}

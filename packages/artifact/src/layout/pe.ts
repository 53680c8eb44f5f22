import { CHECK_EVERY } from './cooperative.js';
import type { Work } from './cooperative.js';
import { ByteReader, malformed, safeSum } from './reader.js';
import { DIR, peMachine, peSectionType, peSubsystem } from './peNames.js';
import { readPeExports, readPeImports } from './peDirectories.js';
import { readCoffSymbols } from './peSymbols.js';
import { peMitigations } from './peMitigations.js';
import { createReadAt } from './mapping.js';
import type { ByteSource } from './source.js';
import { rvaToOffset } from './peContext.js';
import type { PeContext, PeSectionHeader } from './peContext.js';
import type { BinaryLayout, LayoutSection, LayoutSegment, LayoutSymbol } from './types.js';

const MAX_SECTIONS = 96; // the PE loader's own limit

function readSections(r: ByteReader, at: number, count: number, stringTable: number | null): PeSectionHeader[] {
  if (count > MAX_SECTIONS)
    throw malformed('pe', 'malformed', `The section count ${count} exceeds the loader limit of ${MAX_SECTIONS}.`);
  r.check(at, count * 40, 'section table');
  const out: PeSectionHeader[] = [];
  for (let i = 0; i < count; i += 1) {
    const o = at + i * 40;
    let name = r.fixedString(o, 8);
    // "/123": a long name held in the COFF string table.
    if (/^\/\d+$/.test(name) && stringTable !== null) {
      const resolved = r.cstring(stringTable + Number(name.slice(1)));
      if (resolved) name = resolved;
    }
    out.push({
      name,
      virtualSize: r.u32(o + 8),
      rva: r.u32(o + 12),
      rawSize: r.u32(o + 16),
      rawOffset: r.u32(o + 20),
      characteristics: r.u32(o + 36),
    });
  }
  return out;
}

/** Parses a PE/PE32+ image. Throws `unsupported_target` for lying headers. */
export function* parsePe(source: ByteSource): Work<BinaryLayout> {
  const r = new ByteReader(source, true, 'pe');
  r.check(0, 64, 'DOS header');
  const peOffset = r.u32(0x3c);
  r.check(peOffset, 24, 'PE header');
  if (r.u32(peOffset) !== 0x00004550)
    throw malformed('pe', 'unknown-format', 'The MZ file has no PE signature (a DOS program?).');
  const coff = peOffset + 4;
  const machineValue = r.u16(coff);
  const sectionCount = r.u16(coff + 2);
  const symbolTable = r.u32(coff + 8);
  const symbolCount = r.u32(coff + 12);
  const optionalSize = r.u16(coff + 16);
  const characteristics = r.u16(coff + 18);
  const opt = coff + 20;
  r.check(opt, optionalSize, 'optional header');
  if (optionalSize < 2) throw malformed('pe', 'malformed', 'The PE image has no optional header.');
  const magic = r.u16(opt);
  if (magic !== 0x10b && magic !== 0x20b)
    throw malformed('pe', 'malformed', `Unknown optional header magic 0x${magic.toString(16)}.`);
  const is64 = magic === 0x20b;
  const minimum = is64 ? 112 : 96;
  if (optionalSize < minimum)
    throw malformed('pe', 'malformed', `The optional header is ${optionalSize} bytes, too small.`);
  const entryRva = r.u32(opt + 16);
  const imageBase = is64 ? r.u64(opt + 24, 'image base') : r.u32(opt + 28);
  const sizeOfHeaders = r.u32(opt + 60);
  const subsystem = r.u16(opt + 68);
  const dllCharacteristics = r.u16(opt + 70);
  const directoryCount = Math.min(r.u32(opt + (is64 ? 108 : 92)), 16, Math.floor((optionalSize - minimum) / 8));
  const directories: Array<{ rva: number; size: number }> = [];
  for (let i = 0; i < directoryCount; i += 1) {
    directories.push({ rva: r.u32(opt + minimum + i * 8), size: r.u32(opt + minimum + i * 8 + 4) });
  }
  const stringTable =
    symbolTable !== 0 && r.contains(symbolTable + symbolCount * 18, 4) ? symbolTable + symbolCount * 18 : null;
  const sections = readSections(r, opt + optionalSize, sectionCount, stringTable);
  for (const s of sections) safeSum('pe', imageBase, s.rva + Math.max(s.virtualSize, s.rawSize), 'section end address');
  yield 'headers';

  const context: PeContext = {
    reader: r,
    is64,
    imageBase,
    sizeOfHeaders,
    characteristics,
    dllCharacteristics,
    directories,
    sections,
    symbolTable,
    symbolCount,
  };
  const imports = readPeImports(context);
  const exported = readPeExports(context);
  yield 'directories';
  const symbols: LayoutSymbol[] = yield* readCoffSymbols(context);
  yield 'symbols';
  const executable = (address: number): boolean =>
    sections.some(
      (s) =>
        (s.characteristics & 0x20000000) !== 0 &&
        address >= imageBase + s.rva &&
        address < imageBase + s.rva + Math.max(s.virtualSize, s.rawSize),
    );
  let seen = 0;
  for (const e of exported.exports) {
    if (++seen % CHECK_EVERY === 0) yield;
    // An export by ordinal only has no name to list as a symbol; it stays in the export list.
    if (e.name === null) continue;
    symbols.push({
      name: e.name,
      address: e.address,
      size: 0,
      kind: executable(e.address) ? 'function' : 'object',
      binding: 'global',
      defined: true,
      source: 'export',
    });
  }
  for (const i of imports.imports) {
    symbols.push({
      name: i.name,
      address: i.address ?? 0,
      size: 0,
      kind: 'other',
      binding: 'global',
      defined: false,
      source: 'import',
    });
  }

  const layoutSections: LayoutSection[] = sections.map((s) => ({
    name: s.name,
    address: imageBase + s.rva,
    offset: s.rawOffset,
    size: s.virtualSize,
    fileSize: s.rawSize,
    type: peSectionType(s.characteristics),
    flags: {
      alloc: s.rva !== 0,
      write: (s.characteristics & 0x80000000) !== 0,
      execute: (s.characteristics & 0x20000000) !== 0,
    },
  }));
  const mapped = [
    { address: imageBase, offset: 0, memorySize: sizeOfHeaders, fileSize: sizeOfHeaders },
    ...sections.map((s) => ({
      address: imageBase + s.rva,
      offset: s.rawOffset,
      memorySize: s.virtualSize || s.rawSize,
      fileSize: Math.min(s.rawSize, s.virtualSize || s.rawSize),
    })),
  ];
  const segments: LayoutSegment[] = [
    { type: 'headers', ...mapped[0]!, flags: { read: true, write: false, execute: false } },
    ...sections.map((s, i) => ({
      type: s.name,
      ...mapped[i + 1]!,
      flags: {
        read: (s.characteristics & 0x40000000) !== 0,
        write: (s.characteristics & 0x80000000) !== 0,
        execute: (s.characteristics & 0x20000000) !== 0,
      },
    })),
  ];
  const clr = directories[DIR.CLR];
  const { machine, architecture } = peMachine(machineValue);
  return {
    format: 'pe',
    architecture,
    machine,
    bits: is64 ? 64 : 32,
    endianness: 'little',
    header: { fileType: characteristics & 0x2000 ? 'dll' : 'exe', abi: peSubsystem(subsystem) },
    entry: entryRva === 0 ? null : imageBase + entryRva,
    imageBase,
    sections: layoutSections,
    segments,
    symbols,
    imports: imports.imports,
    exports: exported.exports,
    libraries: imports.libraries,
    dotnet: clr !== undefined && clr.rva !== 0 && clr.size >= 72 && rvaToOffset(context, clr.rva) !== null,
    mitigations: peMitigations(context, symbols),
    linkage: {
      kind: imports.libraries.length > 0 ? 'dynamic' : 'static',
      interpreter: null,
      soname: exported.name,
      rpath: [],
      runpath: [],
    },
    readAt: createReadAt(source, mapped),
  };
}

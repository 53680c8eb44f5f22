import type { ByteReader } from './reader.js';

/** One raw Mach-O section. */
export interface MachOSection {
  segment: string;
  name: string;
  address: number;
  size: number;
  offset: number;
  flags: number;
  reserved1: number;
  reserved2: number;
  /** initprot of the containing segment. */
  protection: number;
}

/** The parsed load commands shared by the symbol and import readers. */
export interface MachOContext {
  reader: ByteReader;
  is64: boolean;
  sections: MachOSection[];
  symtab: { symoff: number; nsyms: number; stroff: number; strsize: number } | null;
  indirect: { offset: number; count: number } | null;
  dylibs: string[];
}

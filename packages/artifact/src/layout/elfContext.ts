import type { ByteReader } from './reader.js';

/** One raw ELF section header, with the values REA needs to follow links between sections. */
export interface ElfSectionHeader {
  index: number;
  name: string;
  type: number;
  flags: number;
  address: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  entsize: number;
}

/** One raw ELF program header. */
export interface ElfProgramHeader {
  type: number;
  flags: number;
  offset: number;
  address: number;
  fileSize: number;
  memorySize: number;
}

/** The parsed ELF headers shared by the symbol, dynamic and PLT readers. */
export interface ElfContext {
  reader: ByteReader;
  is64: boolean;
  machine: number;
  fileType: number;
  sections: ElfSectionHeader[];
  programs: ElfProgramHeader[];
}

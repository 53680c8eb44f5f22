import type { ByteReader } from './reader.js';

/** One raw PE section header. */
export interface PeSectionHeader {
  name: string;
  virtualSize: number;
  rva: number;
  rawSize: number;
  rawOffset: number;
  characteristics: number;
}

/** The parsed PE headers shared by the directory, symbol and mitigation readers. */
export interface PeContext {
  reader: ByteReader;
  is64: boolean;
  imageBase: number;
  sizeOfHeaders: number;
  characteristics: number;
  dllCharacteristics: number;
  directories: Array<{ rva: number; size: number }>;
  sections: PeSectionHeader[];
  symbolTable: number;
  symbolCount: number;
}

/** File offset of an RVA (headers or a section's raw data), or null when the RVA has no file bytes. */
export function rvaToOffset(context: PeContext, rva: number): number | null {
  if (rva < context.sizeOfHeaders) return rva < context.reader.length ? rva : null;
  for (const s of context.sections) {
    const span = Math.max(s.virtualSize, s.rawSize);
    if (rva >= s.rva && rva < s.rva + span) {
      const delta = rva - s.rva;
      return delta < s.rawSize && s.rawOffset + delta < context.reader.length ? s.rawOffset + delta : null;
    }
  }
  return null;
}

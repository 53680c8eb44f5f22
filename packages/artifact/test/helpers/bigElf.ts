// A large, valid ELF64 executable written byte by byte: one PT_LOAD segment holding `.text`, and a
// `.symtab` of `symbols` global functions named `function_<n>` (with its `.strtab` and `.shstrtab`).
// Big symbol tables are what make a layout slow to parse, normalize and seal.
import { Buffer } from 'node:buffer';

const EHDR = 64;
const PHDR = 56;
const SHDR = 64;
const SYM = 24;
const BASE = 0x400000;

/** The bytes of an x86-64 ELF executable with `symbols` function symbols and `textBytes` of code. */
export function bigElf(symbols: number, textBytes = 4096): Buffer {
  const names: Buffer[] = [Buffer.from([0])];
  const nameOffsets: number[] = [];
  let strSize = 1;
  for (let i = 0; i < symbols; i += 1) {
    const name = Buffer.from(`function_${i}\0`, 'latin1');
    nameOffsets.push(strSize);
    names.push(name);
    strSize += name.length;
  }
  const strtab = Buffer.concat(names, strSize);
  const shstrtab = Buffer.from('\0.text\0.symtab\0.strtab\0.shstrtab\0', 'latin1');
  const textOffset = 0x1000;
  const symOffset = textOffset + textBytes;
  const symSize = (symbols + 1) * SYM;
  const strOffset = symOffset + symSize;
  const shstrOffset = strOffset + strtab.length;
  const shOffset = Math.ceil((shstrOffset + shstrtab.length) / 8) * 8;
  const out = Buffer.alloc(shOffset + 5 * SHDR);

  // ELF header: 64-bit, little-endian, ET_EXEC, EM_X86_64.
  out.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
  out.writeUInt16LE(2, 16);
  out.writeUInt16LE(62, 18);
  out.writeUInt32LE(1, 20);
  out.writeBigUInt64LE(BigInt(BASE + textOffset), 24);
  out.writeBigUInt64LE(BigInt(EHDR), 32);
  out.writeBigUInt64LE(BigInt(shOffset), 40);
  out.writeUInt16LE(EHDR, 52);
  out.writeUInt16LE(PHDR, 54);
  out.writeUInt16LE(1, 56);
  out.writeUInt16LE(SHDR, 58);
  out.writeUInt16LE(5, 60);
  out.writeUInt16LE(4, 62);

  // PT_LOAD, read + execute, covering the headers and .text.
  out.writeUInt32LE(1, EHDR);
  out.writeUInt32LE(5, EHDR + 4);
  out.writeBigUInt64LE(BigInt(BASE), EHDR + 16);
  out.writeBigUInt64LE(BigInt(BASE), EHDR + 24);
  out.writeBigUInt64LE(BigInt(textOffset + textBytes), EHDR + 32);
  out.writeBigUInt64LE(BigInt(textOffset + textBytes), EHDR + 40);
  out.writeBigUInt64LE(0x1000n, EHDR + 48);

  out.fill(0xc3, textOffset, textOffset + textBytes); // ret
  for (let i = 0; i < symbols; i += 1) {
    const o = symOffset + (i + 1) * SYM;
    out.writeUInt32LE(nameOffsets[i]!, o);
    out[o + 4] = (1 << 4) | 2; // STB_GLOBAL, STT_FUNC
    out.writeUInt16LE(1, o + 6); // defined in .text
    out.writeBigUInt64LE(BigInt(BASE + textOffset + (i % textBytes)), o + 8);
    out.writeBigUInt64LE(1n, o + 16);
  }
  strtab.copy(out, strOffset);
  shstrtab.copy(out, shstrOffset);

  const section = (
    index: number,
    fields: {
      name: number;
      type: number;
      flags?: number;
      address?: number;
      offset: number;
      size: number;
      link?: number;
      info?: number;
      entsize?: number;
    },
  ) => {
    const o = shOffset + index * SHDR;
    out.writeUInt32LE(fields.name, o);
    out.writeUInt32LE(fields.type, o + 4);
    out.writeBigUInt64LE(BigInt(fields.flags ?? 0), o + 8);
    out.writeBigUInt64LE(BigInt(fields.address ?? 0), o + 16);
    out.writeBigUInt64LE(BigInt(fields.offset), o + 24);
    out.writeBigUInt64LE(BigInt(fields.size), o + 32);
    out.writeUInt32LE(fields.link ?? 0, o + 40);
    out.writeUInt32LE(fields.info ?? 0, o + 44);
    out.writeBigUInt64LE(1n, o + 48);
    out.writeBigUInt64LE(BigInt(fields.entsize ?? 0), o + 56);
  };
  section(1, { name: 1, type: 1, flags: 6, address: BASE + textOffset, offset: textOffset, size: textBytes });
  section(2, { name: 7, type: 2, offset: symOffset, size: symSize, link: 3, info: 1, entsize: SYM });
  section(3, { name: 15, type: 3, offset: strOffset, size: strtab.length });
  section(4, { name: 23, type: 3, offset: shstrOffset, size: shstrtab.length });
  return out;
}

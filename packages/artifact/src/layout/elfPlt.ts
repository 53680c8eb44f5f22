import { SHT } from './elfNames.js';
import type { ElfContext, ElfSectionHeader } from './elfContext.js';

const EM_386 = 3;
const EM_X86_64 = 62;
const EM_AARCH64 = 183;
const EM_ARM = 40;
const SHF_ALLOC = 2;
const SHF_EXECINSTR = 4;

/** Relocation types that fill a GOT slot with a symbol's address (JUMP_SLOT and GLOB_DAT). */
const SLOT_TYPES: Record<number, readonly number[]> = {
  [EM_X86_64]: [7, 6],
  [EM_386]: [7, 6],
  [EM_AARCH64]: [1026, 1025],
  [EM_ARM]: [22, 21],
};

/** GOT slot address → imported symbol name, from the allocated (dynamic) relocation sections. */
function slotNames(context: ElfContext): Map<number, string> {
  const { reader: r, is64, sections } = context;
  const types = SLOT_TYPES[context.machine] ?? [];
  const slots = new Map<number, string>();
  // GLOB_DAT slots only matter for .plt.got stubs; large libraries carry megabytes of other dynamic
  // relocations, so those tables are read only when such stubs exist.
  const needGlobDat = sections.some((s) => s.name === '.plt.got');
  for (const section of sections) {
    if ((section.type !== SHT.RELA && section.type !== SHT.REL) || (section.flags & SHF_ALLOC) === 0) continue;
    if (!needGlobDat && !section.name.endsWith('.plt')) continue;
    const symtab = sections[section.link];
    if (!symtab || symtab.type !== SHT.DYNSYM) continue;
    const strings = sections[symtab.link];
    if (!strings) continue;
    const entsize = section.entsize || (section.type === SHT.RELA ? (is64 ? 24 : 12) : is64 ? 16 : 8);
    const symsize = symtab.entsize || (is64 ? 24 : 16);
    if (entsize < (is64 ? 16 : 8) || !r.contains(section.offset, section.size)) continue;
    for (let o = section.offset; o + entsize <= section.offset + section.size; o += entsize) {
      const slot = is64 ? r.u64(o, 'relocation offset') : r.u32(o);
      let type: number;
      let index: number;
      if (is64) {
        const info = o + 8;
        type = r.u32(info + (r.little ? 0 : 4));
        index = r.u32(info + (r.little ? 4 : 0));
      } else {
        const info = r.u32(o + 4);
        type = info & 0xff;
        index = info >>> 8;
      }
      if (!types.includes(type) || index === 0) continue;
      const entry = symtab.offset + index * symsize;
      if (!r.contains(entry, symsize) || entry + symsize > symtab.offset + symtab.size) continue;
      const name = r.cstring(strings.offset + r.u32(entry), strings.offset + strings.size);
      if (name) slots.set(slot, name);
    }
  }
  return slots;
}

function pltSections(context: ElfContext): ElfSectionHeader[] {
  return context.sections.filter(
    (s) =>
      (s.flags & SHF_EXECINSTR) !== 0 &&
      (s.name === '.plt' || s.name.startsWith('.plt.') || s.name === '.iplt') &&
      s.type !== SHT.NOBITS &&
      context.reader.contains(s.offset, s.size),
  );
}

/** x86 and x86-64: `jmp *slot` stubs, with an optional `endbr`/`bnd` lead-in (.plt, .plt.sec, .plt.got). */
function scanX86(context: ElfContext, slots: Map<number, string>, found: Map<string, number>): void {
  const r = context.reader;
  const is64 = context.machine === EM_X86_64;
  const gotBase =
    context.sections.find((s) => s.name === '.got.plt') ?? context.sections.find((s) => s.name === '.got');
  for (const section of pltSections(context)) {
    const region = r.region(section.offset, section.size, `section ${section.name}`);
    const bytes = region.bytes;
    const end = section.offset + section.size - 6;
    for (let at = section.offset; at <= end; at += 1) {
      // `at` is a file offset; `o` indexes the region.
      const o = at - region.base;
      if (bytes[o] !== 0xff) continue;
      const modrm = bytes[o + 1];
      const address = section.address + (at - section.offset);
      let slot: number | null = null;
      if (modrm === 0x25)
        slot = is64 ? address + 6 + region.view.getInt32(o + 2, true) : region.view.getUint32(o + 2, true);
      else if (modrm === 0xa3 && !is64 && gotBase) slot = gotBase.address + region.view.getInt32(o + 2, true);
      if (slot === null) continue;
      const name = slots.get(slot);
      if (name === undefined) continue;
      let start = o;
      const first = section.offset - region.base;
      if (start > first && bytes[start - 1] === 0xf2) start -= 1; // bnd prefix
      if (start - 4 >= first && bytes[start - 4] === 0xf3 && bytes[start - 3] === 0x0f && bytes[start - 2] === 0x1e) {
        start -= 4; // endbr64 / endbr32
      }
      if (!found.has(name)) found.set(name, section.address + (start - first));
      at += 5;
    }
  }
}

/** AArch64: `adrp x16, page; ldr x17, [x16, #off]` stubs, with an optional leading `bti c`. */
function scanAarch64(context: ElfContext, slots: Map<number, string>, found: Map<string, number>): void {
  const r = context.reader;
  for (const section of pltSections(context)) {
    for (let o = section.offset; o + 8 <= section.offset + section.size; o += 4) {
      const adrp = r.u32(o);
      if ((adrp & 0x9f000000) >>> 0 !== 0x90000000) continue;
      const ldr = r.u32(o + 4);
      if ((ldr & 0xffc00000) >>> 0 !== 0xf9400000 || ((ldr >>> 5) & 0x1f) !== (adrp & 0x1f)) continue;
      const pc = section.address + (o - section.offset);
      const immlo = (adrp >>> 29) & 3;
      const immhi = (adrp >>> 5) & 0x7ffff;
      let imm = (immhi << 2) | immlo;
      if (imm & 0x100000) imm -= 0x200000;
      const page = Math.floor(pc / 4096) * 4096 + imm * 4096;
      const slot = page + ((ldr >>> 10) & 0xfff) * 8;
      const name = slots.get(slot);
      if (name === undefined) continue;
      const bti = o - 4 >= section.offset && r.u32(o - 4) === 0xd503245f;
      if (!found.has(name)) found.set(name, pc - (bti ? 4 : 0));
    }
  }
}

/** An ARM modified immediate: an 8-bit value rotated right by twice the 4-bit rotation. */
function armImmediate(insn: number): number {
  const value = insn & 0xff;
  const rotation = ((insn >>> 8) & 0xf) * 2;
  return rotation === 0 ? value : ((value >>> rotation) | (value << (32 - rotation))) >>> 0;
}

/** ARM (A32): `add ip, pc, #a; add ip, ip, #b; ldr pc, [ip, #c]!` stubs, the slot at pc + 8 + a + b + c. */
function scanArm(context: ElfContext, slots: Map<number, string>, found: Map<string, number>): void {
  const r = context.reader;
  for (const section of pltSections(context)) {
    for (let o = section.offset; o + 12 <= section.offset + section.size; o += 4) {
      const first = r.u32(o);
      if ((first & 0xfffff000) >>> 0 !== 0xe28fc000) continue;
      const second = r.u32(o + 4);
      const third = r.u32(o + 8);
      if ((second & 0xfffff000) >>> 0 !== 0xe28cc000 || (third & 0xfffff000) >>> 0 !== 0xe5bcf000) continue;
      const pc = section.address + (o - section.offset);
      const slot = (pc + 8 + armImmediate(first) + armImmediate(second) + (third & 0xfff)) >>> 0;
      const name = slots.get(slot);
      if (name !== undefined && !found.has(name)) found.set(name, pc);
    }
  }
}

/**
 * Resolves PLT stubs to the names of the symbols they jump through: symbol name → stub address.
 * Supports x86-64 (.plt, .plt.sec, .plt.got), i386 (absolute and %ebx-relative), AArch64 and ARM
 * (A32 three-instruction stubs) .plt.
 */
export function resolveElfPlt(context: ElfContext): Map<string, number> {
  const found = new Map<string, number>();
  if (!(context.machine in SLOT_TYPES)) return found;
  const slots = slotNames(context);
  if (slots.size === 0) return found;
  if (context.machine === EM_AARCH64) scanAarch64(context, slots, found);
  else if (context.machine === EM_ARM) scanArm(context, slots, found);
  else scanX86(context, slots, found);
  return found;
}

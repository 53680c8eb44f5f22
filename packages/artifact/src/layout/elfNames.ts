import type { BinaryArchitecture } from './types.js';

/** ELF e_machine values REA names; the rest are reported as `EM_<number>`. */
const MACHINES: Record<number, [string, BinaryArchitecture]> = {
  2: ['EM_SPARC', 'unknown'],
  3: ['EM_386', 'x86'],
  4: ['EM_68K', 'unknown'],
  8: ['EM_MIPS', 'unknown'],
  10: ['EM_MIPS_RS3_LE', 'unknown'],
  20: ['EM_PPC', 'unknown'],
  21: ['EM_PPC64', 'unknown'],
  22: ['EM_S390', 'unknown'],
  40: ['EM_ARM', 'arm'],
  42: ['EM_SH', 'unknown'],
  43: ['EM_SPARCV9', 'unknown'],
  50: ['EM_IA_64', 'unknown'],
  62: ['EM_X86_64', 'x86_64'],
  183: ['EM_AARCH64', 'aarch64'],
  243: ['EM_RISCV', 'unknown'],
  247: ['EM_BPF', 'unknown'],
  258: ['EM_LOONGARCH', 'unknown'],
};

/** The raw name and normalised architecture of an ELF machine number. */
export function elfMachine(value: number): { machine: string; architecture: BinaryArchitecture } {
  const known = MACHINES[value];
  return known ? { machine: known[0], architecture: known[1] } : { machine: `EM_${value}`, architecture: 'unknown' };
}

const FILE_TYPES: Record<number, string> = { 0: 'ET_NONE', 1: 'ET_REL', 2: 'ET_EXEC', 3: 'ET_DYN', 4: 'ET_CORE' };

/** ET_* name of an ELF file type. */
export function elfFileType(value: number): string {
  return FILE_TYPES[value] ?? `ET_0x${value.toString(16)}`;
}

const OS_ABIS: Record<number, string> = {
  0: 'ELFOSABI_NONE',
  3: 'ELFOSABI_GNU',
  6: 'ELFOSABI_SOLARIS',
  9: 'ELFOSABI_FREEBSD',
  12: 'ELFOSABI_OPENBSD',
  97: 'ELFOSABI_ARM',
  255: 'ELFOSABI_STANDALONE',
};

/** ELFOSABI_* name of an OS ABI byte. */
export function elfOsAbi(value: number): string {
  return OS_ABIS[value] ?? `ELFOSABI_${value}`;
}

const SECTION_TYPES: Record<number, string> = {
  0: 'SHT_NULL',
  1: 'SHT_PROGBITS',
  2: 'SHT_SYMTAB',
  3: 'SHT_STRTAB',
  4: 'SHT_RELA',
  5: 'SHT_HASH',
  6: 'SHT_DYNAMIC',
  7: 'SHT_NOTE',
  8: 'SHT_NOBITS',
  9: 'SHT_REL',
  10: 'SHT_SHLIB',
  11: 'SHT_DYNSYM',
  14: 'SHT_INIT_ARRAY',
  15: 'SHT_FINI_ARRAY',
  16: 'SHT_PREINIT_ARRAY',
  17: 'SHT_GROUP',
  18: 'SHT_SYMTAB_SHNDX',
  0x6fff4c03: 'SHT_LLVM_ADDRSIG',
  0x6ffffff5: 'SHT_GNU_ATTRIBUTES',
  0x6ffffff6: 'SHT_GNU_HASH',
  0x6ffffffd: 'SHT_GNU_verdef',
  0x6ffffffe: 'SHT_GNU_verneed',
  0x6fffffff: 'SHT_GNU_versym',
};

/** Processor-specific section types, by machine. */
const PROCESSOR_SECTION_TYPES: Record<number, Record<number, string>> = {
  8: {
    0x70000006: 'SHT_MIPS_REGINFO',
    0x7000000d: 'SHT_MIPS_OPTIONS',
    0x7000001e: 'SHT_MIPS_DWARF',
    0x7000002a: 'SHT_MIPS_ABIFLAGS',
  },
  40: { 0x70000001: 'SHT_ARM_EXIDX', 0x70000002: 'SHT_ARM_PREEMPTMAP', 0x70000003: 'SHT_ARM_ATTRIBUTES' },
  62: { 0x70000001: 'SHT_X86_64_UNWIND' },
  183: { 0x70000003: 'SHT_AARCH64_ATTRIBUTES' },
  243: { 0x70000003: 'SHT_RISCV_ATTRIBUTES' },
};

/** SHT_* name of a section type; unnamed processor- and OS-specific values keep their number. */
export function elfSectionType(value: number, machine: number): string {
  return SECTION_TYPES[value] ?? PROCESSOR_SECTION_TYPES[machine]?.[value] ?? `SHT_0x${value.toString(16)}`;
}

const SEGMENT_TYPES: Record<number, string> = {
  0: 'PT_NULL',
  1: 'PT_LOAD',
  2: 'PT_DYNAMIC',
  3: 'PT_INTERP',
  4: 'PT_NOTE',
  5: 'PT_SHLIB',
  6: 'PT_PHDR',
  7: 'PT_TLS',
  0x6474e550: 'PT_GNU_EH_FRAME',
  0x6474e551: 'PT_GNU_STACK',
  0x6474e552: 'PT_GNU_RELRO',
  0x6474e553: 'PT_GNU_PROPERTY',
};

/** Processor-specific segment types, by machine. */
const PROCESSOR_SEGMENT_TYPES: Record<number, Record<number, string>> = {
  8: { 0x70000000: 'PT_MIPS_REGINFO', 0x70000002: 'PT_MIPS_OPTIONS', 0x70000003: 'PT_MIPS_ABIFLAGS' },
  40: { 0x70000001: 'PT_ARM_EXIDX' },
  62: { 0x70000001: 'PT_X86_64_UNWIND' },
  183: { 0x70000002: 'PT_AARCH64_MEMTAG_MTE' },
  243: { 0x70000003: 'PT_RISCV_ATTRIBUTES' },
};

/** PT_* name of a program header type; unnamed processor- and OS-specific values keep their number. */
export function elfSegmentType(value: number, machine: number): string {
  return SEGMENT_TYPES[value] ?? PROCESSOR_SEGMENT_TYPES[machine]?.[value] ?? `PT_0x${value.toString(16)}`;
}

/** Program header types REA reads. */
export const PT = {
  LOAD: 1,
  DYNAMIC: 2,
  INTERP: 3,
  GNU_STACK: 0x6474e551,
  GNU_RELRO: 0x6474e552,
} as const;

/** Section header types REA reads. */
export const SHT = { SYMTAB: 2, STRTAB: 3, RELA: 4, DYNAMIC: 6, NOBITS: 8, REL: 9, DYNSYM: 11 } as const;

/** Dynamic tags REA reads. */
export const DT = {
  NULL: 0,
  NEEDED: 1,
  STRTAB: 5,
  SONAME: 14,
  RPATH: 15,
  DEBUG: 21,
  BIND_NOW: 24,
  RUNPATH: 29,
  FLAGS: 30,
  FLAGS_1: 0x6ffffffb,
} as const;

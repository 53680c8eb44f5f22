import type { BinaryArchitecture } from './types.js';

const CPU_ARCH_ABI64 = 0x01000000;
const CPU_ARCH_ABI64_32 = 0x02000000;

/** Raw name and normalised architecture of a Mach-O CPU type. */
export function machoCpu(cputype: number): { machine: string; architecture: BinaryArchitecture } {
  switch (cputype) {
    case 7:
      return { machine: 'CPU_TYPE_X86', architecture: 'x86' };
    case 7 | CPU_ARCH_ABI64:
      return { machine: 'CPU_TYPE_X86_64', architecture: 'x86_64' };
    case 12:
      return { machine: 'CPU_TYPE_ARM', architecture: 'arm' };
    case 12 | CPU_ARCH_ABI64:
      return { machine: 'CPU_TYPE_ARM64', architecture: 'aarch64' };
    case 12 | CPU_ARCH_ABI64_32:
      return { machine: 'CPU_TYPE_ARM64_32', architecture: 'aarch64' };
    case 18:
      return { machine: 'CPU_TYPE_POWERPC', architecture: 'unknown' };
    case 18 | CPU_ARCH_ABI64:
      return { machine: 'CPU_TYPE_POWERPC64', architecture: 'unknown' };
    default:
      return { machine: `CPU_TYPE_${cputype >>> 0}`, architecture: 'unknown' };
  }
}

/** The architecture name `lipo` uses for a slice (`x86_64`, `arm64`, `arm64e`, `i386`, …). */
export function sliceName(cputype: number, cpusubtype: number): string {
  const sub = cpusubtype & 0xffffff;
  switch (cputype) {
    case 7:
      return 'i386';
    case 7 | CPU_ARCH_ABI64:
      return sub === 8 ? 'x86_64h' : 'x86_64';
    case 12:
      return sub === 9 ? 'armv7' : sub === 11 ? 'armv7s' : sub === 12 ? 'armv7k' : 'arm';
    case 12 | CPU_ARCH_ABI64:
      return sub === 2 ? 'arm64e' : 'arm64';
    case 12 | CPU_ARCH_ABI64_32:
      return 'arm64_32';
    case 18:
      return 'ppc';
    case 18 | CPU_ARCH_ABI64:
      return 'ppc64';
    default:
      return `cputype-${cputype >>> 0}`;
  }
}

const FILE_TYPES: Record<number, string> = {
  1: 'MH_OBJECT',
  2: 'MH_EXECUTE',
  3: 'MH_FVMLIB',
  4: 'MH_CORE',
  5: 'MH_PRELOAD',
  6: 'MH_DYLIB',
  7: 'MH_DYLINKER',
  8: 'MH_BUNDLE',
  9: 'MH_DYLIB_STUB',
  10: 'MH_DSYM',
  11: 'MH_KEXT_BUNDLE',
  12: 'MH_FILESET',
};

/** MH_* name of a file type. */
export function machoFileType(value: number): string {
  return FILE_TYPES[value] ?? `MH_0x${value.toString(16)}`;
}

const SECTION_TYPES = [
  'S_REGULAR',
  'S_ZEROFILL',
  'S_CSTRING_LITERALS',
  'S_4BYTE_LITERALS',
  'S_8BYTE_LITERALS',
  'S_LITERAL_POINTERS',
  'S_NON_LAZY_SYMBOL_POINTERS',
  'S_LAZY_SYMBOL_POINTERS',
  'S_SYMBOL_STUBS',
  'S_MOD_INIT_FUNC_POINTERS',
  'S_MOD_TERM_FUNC_POINTERS',
  'S_COALESCED',
  'S_GB_ZEROFILL',
  'S_INTERPOSING',
  'S_16BYTE_LITERALS',
  'S_DTRACE_DOF',
  'S_LAZY_DYLIB_SYMBOL_POINTERS',
  'S_THREAD_LOCAL_REGULAR',
  'S_THREAD_LOCAL_ZEROFILL',
  'S_THREAD_LOCAL_VARIABLES',
  'S_THREAD_LOCAL_VARIABLE_POINTERS',
  'S_THREAD_LOCAL_INIT_FUNCTION_POINTERS',
  'S_INIT_FUNC_OFFSETS',
];

/** S_* name of a section type (the low byte of its flags). */
export function machoSectionType(flags: number): string {
  const type = flags & 0xff;
  return SECTION_TYPES[type] ?? `S_0x${type.toString(16)}`;
}

/** True for section types that occupy no file bytes. */
export function isZeroFill(flags: number): boolean {
  const type = flags & 0xff;
  return type === 1 || type === 0xc || type === 0x12;
}

/** Load commands REA reads. */
export const LC = {
  SEGMENT: 0x1,
  SYMTAB: 0x2,
  UNIXTHREAD: 0x5,
  DYSYMTAB: 0xb,
  LOAD_DYLIB: 0xc,
  ID_DYLIB: 0xd,
  LOAD_DYLINKER: 0xe,
  SEGMENT_64: 0x19,
  CODE_SIGNATURE: 0x1d,
  LOAD_WEAK_DYLIB: 0x80000018,
  RPATH: 0x8000001c,
  REEXPORT_DYLIB: 0x8000001f,
  LAZY_LOAD_DYLIB: 0x20,
  LOAD_UPWARD_DYLIB: 0x80000023,
  MAIN: 0x80000028,
  DYLD_INFO: 0x22,
  DYLD_INFO_ONLY: 0x80000022,
  DYLD_EXPORTS_TRIE: 0x80000033,
} as const;

/** Mach-O header flags REA reads. */
export const MH = {
  TWOLEVEL: 0x80,
  ALLOW_STACK_EXECUTION: 0x20000,
  PIE: 0x200000,
  NO_HEAP_EXECUTION: 0x1000000,
} as const;

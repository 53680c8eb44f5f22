import type { BinaryArchitecture } from './types.js';

const MACHINES: Record<number, [string, BinaryArchitecture]> = {
  0x14c: ['IMAGE_FILE_MACHINE_I386', 'x86'],
  0x8664: ['IMAGE_FILE_MACHINE_AMD64', 'x86_64'],
  0xaa64: ['IMAGE_FILE_MACHINE_ARM64', 'aarch64'],
  0x1c0: ['IMAGE_FILE_MACHINE_ARM', 'arm'],
  0x1c2: ['IMAGE_FILE_MACHINE_THUMB', 'arm'],
  0x1c4: ['IMAGE_FILE_MACHINE_ARMNT', 'arm'],
  0x200: ['IMAGE_FILE_MACHINE_IA64', 'unknown'],
  0x5064: ['IMAGE_FILE_MACHINE_RISCV64', 'unknown'],
  0xa641: ['IMAGE_FILE_MACHINE_ARM64EC', 'aarch64'],
};

/** Raw name and normalised architecture of a COFF machine value. */
export function peMachine(value: number): { machine: string; architecture: BinaryArchitecture } {
  const known = MACHINES[value];
  return known
    ? { machine: known[0], architecture: known[1] }
    : { machine: `IMAGE_FILE_MACHINE_0x${value.toString(16)}`, architecture: 'unknown' };
}

const SUBSYSTEMS: Record<number, string> = {
  0: 'IMAGE_SUBSYSTEM_UNKNOWN',
  1: 'IMAGE_SUBSYSTEM_NATIVE',
  2: 'IMAGE_SUBSYSTEM_WINDOWS_GUI',
  3: 'IMAGE_SUBSYSTEM_WINDOWS_CUI',
  7: 'IMAGE_SUBSYSTEM_POSIX_CUI',
  9: 'IMAGE_SUBSYSTEM_WINDOWS_CE_GUI',
  10: 'IMAGE_SUBSYSTEM_EFI_APPLICATION',
  11: 'IMAGE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER',
  12: 'IMAGE_SUBSYSTEM_EFI_RUNTIME_DRIVER',
  13: 'IMAGE_SUBSYSTEM_EFI_ROM',
  14: 'IMAGE_SUBSYSTEM_XBOX',
  16: 'IMAGE_SUBSYSTEM_WINDOWS_BOOT_APPLICATION',
};

/** IMAGE_SUBSYSTEM_* name. */
export function peSubsystem(value: number): string {
  return SUBSYSTEMS[value] ?? `IMAGE_SUBSYSTEM_${value}`;
}

/** Section content type from its characteristics. */
export function peSectionType(characteristics: number): string {
  if (characteristics & 0x20) return 'code';
  if (characteristics & 0x40) return 'initialized-data';
  if (characteristics & 0x80) return 'uninitialized-data';
  return 'other';
}

/** Data directory indices REA reads. */
export const DIR = { EXPORT: 0, IMPORT: 1, CERTIFICATE: 4, LOAD_CONFIG: 10, DELAY_IMPORT: 13, CLR: 14 } as const;

/** DllCharacteristics bits. */
export const DLLCHAR = {
  HIGH_ENTROPY_VA: 0x20,
  DYNAMIC_BASE: 0x40,
  NX_COMPAT: 0x100,
  NO_SEH: 0x400,
  GUARD_CF: 0x4000,
} as const;

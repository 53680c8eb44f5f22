/** Container formats {@link parseBinaryLayout} recognises. */
export type BinaryFormat = 'elf' | 'pe' | 'macho' | 'macho-fat';

/** Normalised instruction-set family; `unknown` keeps the raw name in `machine`. */
export type BinaryArchitecture = 'x86_64' | 'x86' | 'aarch64' | 'arm' | 'unknown';

/** One section (ELF section header, PE section, Mach-O section). Addresses and offsets are numbers. */
export interface LayoutSection {
  name: string;
  /** Virtual address (0 for sections that are not mapped). */
  address: number;
  /** File offset of the section's bytes. */
  offset: number;
  /** Size in memory. */
  size: number;
  /** Bytes present in the file (0 for NOBITS / zero-fill sections). */
  fileSize: number;
  /** Raw type name, e.g. `SHT_PROGBITS`, `S_REGULAR`, `code`. */
  type: string;
  flags: { alloc: boolean; write: boolean; execute: boolean };
}

/** One loadable segment (ELF program header, PE image as sections, Mach-O LC_SEGMENT). */
export interface LayoutSegment {
  /** Raw type name, e.g. `PT_LOAD`, `PT_GNU_STACK`, or a Mach-O segment name such as `__TEXT`. */
  type: string;
  address: number;
  offset: number;
  memorySize: number;
  fileSize: number;
  flags: { read: boolean; write: boolean; execute: boolean };
}

/** One symbol from a symbol table or an export/import directory. */
export interface LayoutSymbol {
  name: string;
  address: number;
  size: number;
  kind: 'function' | 'object' | 'other';
  binding: 'global' | 'local' | 'weak';
  /** False for an undefined (imported) symbol. */
  defined: boolean;
  source: 'symtab' | 'dynsym' | 'export' | 'import';
}

/**
 * One imported function or object. `address` is where code calls through: an ELF PLT stub, a PE IAT
 * slot, a Mach-O `__stubs` entry; null when no such place was found (e.g. a data import or a GOT-only
 * call).
 */
export interface LayoutImport {
  name: string;
  /**
   * The library that provides it, when the file says: PE import directory, Mach-O two-level namespace,
   * ELF GNU symbol versioning (`.gnu.version_r`); else null (e.g. an unversioned ELF import).
   */
  library: string | null;
  address: number | null;
}

/** One exported (defined, externally visible) symbol. */
export interface LayoutExport {
  /** The exported name; null for a PE export by ordinal only. */
  name: string | null;
  /** Image base plus the exported RVA (for a PE forwarder, the RVA of its forwarder string). */
  address: number;
  /** PE only: the export ordinal (the directory's ordinal base plus the address-table index). */
  ordinal?: number;
  /** PE only: the forwarder ("OTHER.Name" or "OTHER.#7") when the export is forwarded, else null. */
  forwarder?: string | null;
}

/**
 * Exploit mitigations. Each flag is null where it does not apply to the format (e.g. `relro` on PE,
 * `cfg` on ELF) and a boolean where the binary says.
 */
export interface LayoutMitigations {
  /** Data is not executable: ELF PT_GNU_STACK without X; PE NX_COMPAT; Mach-O MH_NO_HEAP_EXECUTION or 64-bit. */
  nx: boolean | null;
  /**
   * A position-independent executable: ELF ET_DYN marked DF_1_PIE or holding DT_DEBUG (a shared object
   * is not one: false); Mach-O MH_PIE; PE DYNAMIC_BASE.
   */
  pie: boolean | null;
  /** ELF only. */
  relro: 'none' | 'partial' | 'full' | null;
  /** A stack protector reference: `__stack_chk_fail` / `__stack_chk_guard` (ELF, Mach-O), `__security_cookie` or load-config cookie (PE). */
  stackCanary: boolean | null;
  /** ELF and Mach-O: a `__*_chk` fortified libc function is referenced. */
  fortify: boolean | null;
  /** PE only: GUARD_CF in DllCharacteristics. */
  cfg: boolean | null;
  /** PE: DYNAMIC_BASE; ELF: true for ET_DYN (a PIE or a shared object, loaded at a randomized base); Mach-O: same as pie. */
  aslr: boolean | null;
  /** PE: NX_COMPAT; ELF and Mach-O: same as nx. */
  dep: boolean | null;
  /** PE: a certificate table; Mach-O: LC_CODE_SIGNATURE; ELF: null. */
  codeSignature: boolean | null;
  /** PE: HIGH_ENTROPY_VA (64-bit ASLR); else null. */
  highEntropyVa: boolean | null;
  /** PE: SafeSEH handler table present (32-bit); else null. */
  safeSeh: boolean | null;
}

/** How the binary is linked. */
export interface LayoutLinkage {
  kind: 'static' | 'dynamic';
  /** ELF PT_INTERP, Mach-O LC_LOAD_DYLINKER; null otherwise. */
  interpreter: string | null;
  /** ELF DT_SONAME, Mach-O LC_ID_DYLIB; null otherwise. */
  soname: string | null;
  rpath: string[];
  runpath: string[];
}

/** A fat (universal) Mach-O slice. */
export interface LayoutSlice {
  architecture: string;
  offset: number;
  size: number;
}

/** Format header facts, for display. */
export interface LayoutHeader {
  /** File type, e.g. `ET_DYN`, `MH_EXECUTE`, `dll`, `exe`. */
  fileType: string;
  /** Subsystem (PE) or OS ABI (ELF) or null. */
  abi: string | null;
}

/**
 * The layout of one executable file (ELF, PE, Mach-O). Plain data plus {@link BinaryLayout.readAt}.
 * Every number is exact (a value above Number.MAX_SAFE_INTEGER makes parsing fail instead).
 */
export interface BinaryLayout {
  format: BinaryFormat;
  architecture: BinaryArchitecture;
  /** Raw machine name, e.g. `EM_X86_64`, `IMAGE_FILE_MACHINE_AMD64`, `CPU_TYPE_ARM64`. */
  machine: string;
  bits: 32 | 64;
  endianness: 'little' | 'big';
  header: LayoutHeader;
  /** Entry point virtual address, or null when the file has none (objects, most libraries). */
  entry: number | null;
  /** Preferred load address: lowest PT_LOAD vaddr (ELF), ImageBase (PE), __TEXT vmaddr (Mach-O). */
  imageBase: number;
  sections: LayoutSection[];
  segments: LayoutSegment[];
  symbols: LayoutSymbol[];
  imports: LayoutImport[];
  exports: LayoutExport[];
  /** Needed libraries in load-command / DT_NEEDED / import-directory order. */
  libraries: string[];
  /** PE with a CLI (.NET) header. Always false for ELF and Mach-O. */
  dotnet: boolean;
  mitigations: LayoutMitigations;
  linkage: LayoutLinkage;
  /** Slices of a fat Mach-O; the other fields describe the first slice (preferring x86_64, then arm64). */
  slices?: LayoutSlice[];
  /**
   * The file bytes mapped at `[address, address + length)`, or null when the range is not wholly
   * mapped by one segment (or one allocated section in a relocatable object). Zero-fill (bss) reads as
   * zeros. The returned array may share memory with the input: do not write to it.
   */
  readAt(address: number, length: number): Uint8Array | null;
}

/** Options for {@link parseBinaryLayout}. */
export interface ParseBinaryLayoutOptions {
  /** Checked between parsing phases; an aborted signal throws `cancelled`. */
  signal?: AbortSignal;
}

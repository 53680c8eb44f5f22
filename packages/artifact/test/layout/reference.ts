// Reference readings of the same files by the LLVM tools, for cross-checking the parser.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

function run(tool: string, args: readonly string[]): string {
  return execFileSync(tool, args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
}

interface JsonSection {
  Section: {
    Name: { Value: string };
    Type: { Value: string };
    Address: number;
    Offset: number;
    Size: number;
    Flags: { RawFlags: number };
  };
}
interface JsonSymbol {
  Symbol: {
    Name: { Value: string };
    Value: number;
    Size: number;
    Binding: { Value: string };
    Type: { Value: string };
    Section: { Value: string };
  };
}
interface JsonProgram {
  ProgramHeader: {
    Type: { Value: string };
    Offset: number;
    VirtualAddress: number;
    FileSize: number;
    MemSize: number;
    Flags: { RawFlags: number };
  };
}

/** What llvm-readobj says about an ELF file. */
export interface ElfReference {
  format: string;
  arch: string;
  headers: { class: string; encoding: string; machine: string; type: string; entry: number };
  sections: Array<{ name: string; type: string; address: number; offset: number; size: number; flags: number }>;
  symbols: Array<{ name: string; value: number; size: number; binding: string; type: string; section: string }>;
  dynamicSymbols: Array<{ name: string; value: number; size: number; binding: string; type: string; section: string }>;
  programs: Array<{
    type: string;
    offset: number;
    address: number;
    fileSize: number;
    memorySize: number;
    flags: number;
  }>;
}

/** Sections, symbols, dynamic symbols, program headers and file header from `llvm-readobj --elf-output-style=JSON`. */
export function readElfReference(path: string): ElfReference {
  const text = run('llvm-readobj', [
    '--file-headers',
    '--sections',
    '--symbols',
    '--dyn-symbols',
    '--program-headers',
    '--elf-output-style=JSON',
    path,
  ]);
  const top = (JSON.parse(text) as Array<Record<string, Record<string, unknown>>>)[0]!;
  const file = Object.values(top)[0]!;
  const summary = file['FileSummary'] as { Format: string; Arch: string };
  const header = file['ElfHeader'] as {
    Ident: { Class: { Value: string }; DataEncoding: { Value: string } };
    Machine: { Value: string };
    Type: string;
    Entry: number;
  };
  const symbol = (s: JsonSymbol) => ({
    name: s.Symbol.Name.Value,
    value: s.Symbol.Value,
    size: s.Symbol.Size,
    binding: s.Symbol.Binding.Value,
    type: s.Symbol.Type.Value,
    section: s.Symbol.Section.Value,
  });
  return {
    format: summary.Format,
    arch: summary.Arch,
    headers: {
      class: header.Ident.Class.Value,
      encoding: header.Ident.DataEncoding.Value,
      machine: header.Machine.Value,
      type: header.Type,
      entry: header.Entry,
    },
    sections: ((file['Sections'] ?? []) as JsonSection[]).map((s) => ({
      name: s.Section.Name.Value,
      type: s.Section.Type.Value,
      address: s.Section.Address,
      offset: s.Section.Offset,
      size: s.Section.Size,
      flags: s.Section.Flags.RawFlags,
    })),
    symbols: ((file['Symbols'] ?? []) as JsonSymbol[]).map(symbol),
    // llvm-readobj appends the version (`name@VERSION`, `name@@VERSION`) to dynamic symbol names.
    dynamicSymbols: ((file['DynamicSymbols'] ?? []) as JsonSymbol[])
      .map(symbol)
      .map((s) => ({ ...s, name: s.name.replace(/@.*$/, '') })),
    programs: ((file['ProgramHeaders'] ?? []) as JsonProgram[]).map((p) => ({
      type: p.ProgramHeader.Type.Value,
      offset: p.ProgramHeader.Offset,
      address: p.ProgramHeader.VirtualAddress,
      fileSize: p.ProgramHeader.FileSize,
      memorySize: p.ProgramHeader.MemSize,
      flags: p.ProgramHeader.Flags.RawFlags,
    })),
  };
}

/** The dynamic table as `llvm-readelf -d` prints it: needed libraries, soname, rpath, runpath, flags. */
export function readElfDynamicReference(path: string): {
  needed: string[];
  soname: string | null;
  rpath: string[];
  runpath: string[];
  flags: string[];
} {
  const out = {
    needed: [] as string[],
    soname: null as string | null,
    rpath: [] as string[],
    runpath: [] as string[],
    flags: [] as string[],
  };
  for (const line of run('llvm-readelf', ['-d', path]).split('\n')) {
    const match = /^\s*0x[0-9a-f]+\s+\((\w+)\)\s+(.*)$/i.exec(line);
    if (!match) continue;
    const [, tag, value] = match as unknown as [string, string, string];
    const bracket = /\[(.*)\]/.exec(value)?.[1] ?? '';
    if (tag === 'NEEDED') out.needed.push(bracket);
    else if (tag === 'SONAME') out.soname = bracket;
    else if (tag === 'RPATH') out.rpath.push(...bracket.split(':').filter(Boolean));
    else if (tag === 'RUNPATH') out.runpath.push(...bracket.split(':').filter(Boolean));
    else if (tag === 'FLAGS' || tag === 'FLAGS_1' || tag === 'BIND_NOW')
      out.flags.push(...(tag === 'BIND_NOW' ? ['BIND_NOW'] : value.trim().split(/\s+/)));
  }
  return out;
}

/** PLT stub labels from GNU `objdump -d` (its synthetic `name@plt` symbols) → address. */
export function readPltLabels(path: string, objdump = 'objdump'): Map<string, number> {
  const labels = new Map<string, number>();
  for (const line of run(objdump, ['-d', '--no-show-raw-insn', path]).split('\n')) {
    const match = /^([0-9a-f]+) <(.+)@plt>:$/.exec(line);
    if (match) labels.set(match[2]!, Number.parseInt(match[1]!, 16));
  }
  return labels;
}

/** The bytes of one section as `llvm-objcopy --dump-section` writes them. */
export function dumpSection(path: string, section: string, into: string): Buffer {
  run('llvm-objcopy', [`--dump-section=${section}=${into}`, path, `${into}.discard`]);
  return readFileSync(into);
}

/** One `Name {` block of llvm-readobj's text output: its fields (repeatable) and nested blocks. */
export interface ReadobjBlock {
  name: string;
  fields: Map<string, string[]>;
  children: ReadobjBlock[];
}

/** Parses llvm-readobj's default text output into blocks (`Key {`/`Key [` open, `}`/`]` close). */
export function parseReadobjText(text: string): ReadobjBlock {
  const root: ReadobjBlock = { name: 'root', fields: new Map(), children: [] };
  const stack = [root];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const top = stack[stack.length - 1]!;
    const open = /^(.*?)\s*[{[]\s*(?:\((.*)\))?$/.exec(line);
    if (line === '}' || line === ']') {
      if (stack.length > 1) stack.pop();
    } else if (open && !line.includes(': ')) {
      // `Characteristics [ (0x60000060)`: the raw value is kept under the key "value".
      const block: ReadobjBlock = {
        name: open[1]!,
        fields: new Map(open[2] ? [['value', [open[2]]]] : []),
        children: [],
      };
      top.children.push(block);
      stack.push(block);
    } else {
      const colon = line.indexOf(': ');
      if (colon < 0) {
        // A flag line inside a list, e.g. `IMAGE_SCN_CNT_CODE (0x20)`.
        if (line) top.fields.set(line, [...(top.fields.get(line) ?? []), line]);
        continue;
      }
      const key = line.slice(0, colon);
      top.fields.set(key, [...(top.fields.get(key) ?? []), line.slice(colon + 2)]);
    }
  }
  return root;
}

/** All blocks named `name`, at any depth. */
export function blocks(root: ReadobjBlock, name: string): ReadobjBlock[] {
  const out: ReadobjBlock[] = [];
  const walk = (block: ReadobjBlock) => {
    for (const child of block.children) {
      if (child.name === name) out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/** The first value of a field, or ''. */
export function field(block: ReadobjBlock, key: string): string {
  return block.fields.get(key)?.[0] ?? '';
}

/** A number as llvm-readobj prints it (`0x1F`, `31`, `.text (1)` → 1 when asked for the parenthesised part). */
export function num(text: string): number {
  const hex = /0x([0-9a-f]+)/i.exec(text);
  return hex ? Number.parseInt(hex[1]!, 16) : Number.parseInt(text, 10);
}

/** `llvm-readobj` text for a non-ELF file (COFF, Mach-O). */
export function readobjText(path: string, args: readonly string[]): ReadobjBlock {
  return parseReadobjText(run('llvm-readobj', [...args, path]));
}

/**
 * The library each versioned undefined dynamic symbol binds to, from `llvm-readelf -V` (the version
 * index of every .dynsym entry, and the file that provides each needed version index) and
 * `llvm-readelf --dyn-syms` (entry numbers and names): name → file.
 */
export function readElfImportLibraries(path: string): Map<string, string> {
  const fileOfIndex = new Map<number, string>();
  const versionOfEntry: number[] = [];
  let file: string | null = null;
  let section: 'needs' | 'symbols' | null = null;
  for (const line of run('llvm-readelf', ['-V', path]).split('\n')) {
    if (line.startsWith('Version needs')) section = 'needs';
    else if (line.startsWith('Version symbols')) section = 'symbols';
    else if (/^\S/.test(line)) section = null;
    if (section === 'needs') {
      const needed = /File: (\S+)/.exec(line);
      if (needed) file = needed[1]!;
      const version = /Name: \S+\s+Flags: .*Version: (\d+)/.exec(line);
      if (version && file) fileOfIndex.set(Number(version[1]), file);
    } else if (section === 'symbols' && /^\s+[0-9a-f]+:/.test(line)) {
      const start = Number.parseInt(/^\s+([0-9a-f]+):/.exec(line)![1]!, 16);
      // Version indices are printed in hexadecimal, hidden ones with an `h` suffix.
      [...line.slice(line.indexOf(':') + 1).matchAll(/([0-9a-f]+)h? \(/g)].forEach((m, k) => {
        versionOfEntry[start + k] = Number.parseInt(m[1]!, 16);
      });
    }
  }
  const out = new Map<string, string>();
  for (const line of run('llvm-readelf', ['--dyn-syms', '-W', path]).split('\n')) {
    const match = /^\s*(\d+):.*\sUND\s+([^@\s]+)@/.exec(line);
    if (!match) continue;
    const library = fileOfIndex.get((versionOfEntry[Number(match[1])] ?? 0) & 0x7fff);
    if (library && !out.has(match[2]!)) out.set(match[2]!, library);
  }
  return out;
}

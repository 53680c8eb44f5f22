import { expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import * as fx from './fixtures.js';
import {
  dumpSection,
  readElfDynamicReference,
  readElfImportLibraries,
  readElfReference,
  readPltLabels,
} from './reference.js';

const KIND: Record<string, string> = { Function: 'function', GNU_IFunc: 'function', Object: 'object', TLS: 'object' };
const BINDING: Record<string, string> = { Local: 'local', Global: 'global', Weak: 'weak', Unique: 'global' };

function parse(path: string): BinaryLayout {
  return parseBinaryLayout(readFileSync(path));
}

/** Sections, symbols, segments and header facts agree with llvm-readobj on the same file. */
function expectMatchesReadobj(path: string): BinaryLayout {
  const layout = parse(path);
  const ref = readElfReference(path);
  expect(layout.format).toBe('elf');
  expect(layout.bits).toBe(ref.headers.class === '64-bit' ? 64 : 32);
  expect(layout.endianness).toBe(ref.headers.encoding === 'LittleEndian' ? 'little' : 'big');
  expect(layout.machine).toBe(ref.headers.machine);
  expect(layout.entry).toBe(ref.headers.entry === 0 ? null : ref.headers.entry);
  expect(layout.sections.map((s) => [s.name, s.type, s.address, s.offset, s.size])).toEqual(
    ref.sections.slice(1).map((s) => [s.name, s.type, s.address, s.offset, s.size]),
  );
  expect(layout.sections.map((s) => [s.flags.write, s.flags.alloc, s.flags.execute])).toEqual(
    ref.sections.slice(1).map((s) => [(s.flags & 1) !== 0, (s.flags & 2) !== 0, (s.flags & 4) !== 0]),
  );
  const project = (list: typeof ref.symbols) =>
    list
      .slice(1)
      .map((s) => [s.name, s.value, s.size, KIND[s.type] ?? 'other', BINDING[s.binding], s.section !== 'Undefined']);
  const ours = (source: string) =>
    layout.symbols
      .filter((s) => s.source === source)
      .map((s) => [s.name, s.address, s.size, s.kind, s.binding, s.defined]);
  expect(ours('symtab')).toEqual(project(ref.symbols));
  expect(ours('dynsym')).toEqual(project(ref.dynamicSymbols));
  expect(layout.segments.map((s) => [s.type, s.offset, s.address, s.fileSize, s.memorySize])).toEqual(
    ref.programs.map((p) => [p.type, p.offset, p.address, p.fileSize, p.memorySize]),
  );
  expect(layout.segments.map((s) => [s.flags.execute, s.flags.write, s.flags.read])).toEqual(
    ref.programs.map((p) => [(p.flags & 1) !== 0, (p.flags & 2) !== 0, (p.flags & 4) !== 0]),
  );
  const dynamic = readElfDynamicReference(path);
  expect(layout.libraries).toEqual(dynamic.needed);
  expect(layout.linkage.soname).toBe(dynamic.soname);
  expect(layout.linkage.rpath).toEqual(dynamic.rpath);
  expect(layout.linkage.runpath).toEqual(dynamic.runpath);
  // Import libraries from GNU symbol versioning agree with llvm-readelf -V / --dyn-syms.
  const libraries = readElfImportLibraries(path);
  expect(layout.imports.map((i) => [i.name, i.library])).toEqual(
    layout.imports.map((i) => [i.name, libraries.get(i.name) ?? null]),
  );
  return layout;
}

/**
 * Every PLT stub GNU objdump labels `name@plt` for an imported name is the import address we report,
 * and every address we report is such a label. (Stubs for symbols the file defines itself are not
 * imports.)
 */
function expectPltMatchesObjdump(layout: BinaryLayout, path: string, atLeast: number, objdump = 'objdump'): void {
  const imported = new Set(layout.imports.map((i) => i.name));
  const labels = new Map([...readPltLabels(path, objdump)].filter(([name]) => imported.has(name)));
  expect(labels.size).toBeGreaterThanOrEqual(atLeast);
  const resolved = new Map(layout.imports.filter((i) => i.address !== null).map((i) => [i.name, i.address]));
  for (const [name, address] of labels) expect([name, resolved.get(name)]).toEqual([name, address]);
  for (const [name, address] of resolved) expect([name, labels.get(name)]).toEqual([name, address]);
}

skipUnless(toolsMissing('gcc', 'llvm-readobj', 'llvm-readelf', 'objdump', 'llvm-objcopy'))(
  'ELF layout (x86-64, host gcc)',
  () => {
    it('should match llvm-readobj and resolve every PLT stub of a hardened PIE', () => {
      const path = fx.elfX64Pie();
      const layout = expectMatchesReadobj(path);
      expect(layout.architecture).toBe('x86_64');
      expect(layout.header.fileType).toBe('ET_DYN');
      expectPltMatchesObjdump(layout, path, 4);
      expect(layout.imports.map((i) => i.name)).toEqual(
        expect.arrayContaining(['puts', 'printf', 'strlen', 'malloc', 'free']),
      );
      expect(layout.linkage.kind).toBe('dynamic');
      expect(layout.linkage.interpreter).toMatch(/ld-linux-x86-64\.so\.2$/);
      expect(layout.imports.find((i) => i.name === 'puts')?.library).toBe('libc.so.6');
      // Built with -pie, -z relro -z now, -z noexecstack and -fstack-protector-all.
      expect(layout.mitigations).toMatchObject({
        nx: true,
        pie: true,
        relro: 'full',
        stackCanary: true,
        aslr: true,
        dep: true,
      });
      expect(layout.mitigations.cfg).toBeNull();
      expect(layout.mitigations.codeSignature).toBeNull();
      expect(layout.symbols.find((s) => s.name === 'add')).toMatchObject({
        kind: 'function',
        binding: 'global',
        defined: true,
      });
      expect(layout.symbols.find((s) => s.name === 'helper')).toMatchObject({ binding: 'local', source: 'symtab' });
    });

    it('should report a plain non-PIE build without RELRO and with an executable stack', () => {
      const path = fx.elfX64Plain();
      const layout = expectMatchesReadobj(path);
      expect(layout.header.fileType).toBe('ET_EXEC');
      expectPltMatchesObjdump(layout, path, 4);
      expect(layout.mitigations).toMatchObject({
        nx: false,
        pie: false,
        relro: 'none',
        stackCanary: false,
        fortify: false,
      });
      expect(layout.imageBase).toBe(0x400000);
    });

    it('should resolve IBT stubs in .plt.sec as gcc -fcf-protection lays them out', () => {
      const path = fx.elfX64Ibt();
      const layout = expectMatchesReadobj(path);
      const pltSec = layout.sections.find((s) => s.name === '.plt.sec');
      expect(pltSec).toBeDefined();
      expectPltMatchesObjdump(layout, path, 3);
      for (const name of ['puts', 'printf', 'strlen']) {
        const address = layout.imports.find((i) => i.name === name)?.address ?? -1;
        expect(address >= pltSec!.address && address < pltSec!.address + pltSec!.size).toBe(true);
        // Each .plt.sec stub starts with endbr64.
        expect([...layout.readAt(address, 4)!]).toEqual([0xf3, 0x0f, 0x1e, 0xfa]);
      }
      expect(layout.mitigations.relro).toBe('partial');
    });

    it('should detect FORTIFY_SOURCE and a stack protector', () => {
      const layout = expectMatchesReadobj(fx.elfFortify());
      expect(layout.imports.map((i) => i.name)).toEqual(
        expect.arrayContaining(['__strcpy_chk', '__printf_chk', '__stack_chk_fail']),
      );
      expect(layout.mitigations).toMatchObject({ fortify: true, stackCanary: true });
    });

    it('should describe a relocatable object', () => {
      const layout = expectMatchesReadobj(fx.elfX64Object());
      expect(layout.header.fileType).toBe('ET_REL');
      expect(layout.entry).toBeNull();
      expect(layout.segments).toEqual([]);
      expect(layout.exports.map((e) => e.name).sort()).toEqual(['add', 'counter', 'greeting', 'main']);
      expect(layout.mitigations.pie).toBeNull();
      expect(layout.mitigations.relro).toBeNull();
    });

    it('should read section bytes by virtual address exactly as llvm-objcopy dumps them', async () => {
      const path = fx.elfX64Pie();
      const layout = parse(path);
      await withTempDir((dir) => {
        for (const name of ['.text', '.rodata', '.data']) {
          const section = layout.sections.find((s) => s.name === name)!;
          const expected = dumpSection(path, name, join(dir, name.slice(1)));
          expect(Buffer.from(layout.readAt(section.address, section.size)!).equals(expected)).toBe(true);
        }
      });
      const bss = layout.sections.find((s) => s.name === '.bss')!;
      expect([...layout.readAt(bss.address, Math.min(bss.size, 4))!]).toEqual(new Array(Math.min(bss.size, 4)).fill(0));
      expect(layout.readAt(0x7fff_0000_0000, 4)).toBeNull();
    });
  },
);

const staticReason =
  toolsMissing('gcc', 'llvm-readobj') ??
  (existsSync('/usr/lib/x86_64-linux-gnu/libc.a') ? null : 'no static C library (libc.a)');
skipUnless(staticReason)('ELF layout (static linking)', () => {
  it('should report static linkage with no interpreter and no needed libraries', () => {
    const layout = expectMatchesReadobj(fx.elfX64Static());
    expect(layout.linkage).toMatchObject({ kind: 'static', interpreter: null });
    expect(layout.libraries).toEqual([]);
  });

  it('should report a static PIE as static: its dynamic section is marked DF_1_PIE and it has no interpreter', () => {
    const path = fx.elfX64StaticPie();
    const layout = expectMatchesReadobj(path);
    expect(layout.header.fileType).toBe('ET_DYN');
    expect(readElfDynamicReference(path).flags).toContain('PIE');
    expect(layout.linkage).toMatchObject({ kind: 'static', interpreter: null, soname: null });
  });
});

skipUnless(toolsMissing('aarch64-linux-gnu-gcc', 'aarch64-linux-gnu-objdump', 'llvm-readobj'))(
  'ELF layout (AArch64, GNU ld)',
  () => {
    it('should report a shared object with no SONAME and nothing NEEDED as dynamic', () => {
      const path = fx.elfAarch64Bare();
      const layout = expectMatchesReadobj(path);
      expect(layout.header.fileType).toBe('ET_DYN');
      expect(layout.libraries).toEqual([]);
      expect(layout.linkage).toMatchObject({ kind: 'dynamic', interpreter: null, soname: null });
    });

    it('should match llvm-readobj and resolve adrp/ldr PLT stubs', () => {
      const path = fx.elfAarch64();
      const layout = expectMatchesReadobj(path);
      expect(layout.architecture).toBe('aarch64');
      expectPltMatchesObjdump(layout, path, 3, 'aarch64-linux-gnu-objdump');
      expect(layout.libraries).toEqual([expect.stringMatching(/libstub-aarch64-linux-gnu\.so$/)]);
    });
  },
);

skipUnless(toolsMissing('clang', 'ld.lld', 'llvm-readobj', 'objdump'))(
  'ELF layout (32-bit and big-endian, clang + lld)',
  () => {
    it('should parse an i386 object and an i386 executable with absolute PLT jumps', () => {
      expect(expectMatchesReadobj(fx.elfI386Object()).bits).toBe(32);
      const path = fx.elfI386Exec();
      const layout = expectMatchesReadobj(path);
      expect(layout.architecture).toBe('x86');
      expectPltMatchesObjdump(layout, path, 4);
    });

    it('should parse big-endian PowerPC (32-bit shared object, 64-bit object) and MIPS objects', () => {
      const ppc = expectMatchesReadobj(fx.elfPpcShared());
      expect([ppc.endianness, ppc.bits, ppc.architecture, ppc.machine]).toEqual(['big', 32, 'unknown', 'EM_PPC']);
      expect(ppc.exports.map((e) => e.name)).toEqual(expect.arrayContaining(['add', 'main', 'counter']));
      const ppc64 = expectMatchesReadobj(fx.elfPpc64Object());
      expect([ppc64.endianness, ppc64.bits]).toEqual(['big', 64]);
      const mips = expectMatchesReadobj(fx.elfMipsObject());
      expect([mips.endianness, mips.bits, mips.machine]).toEqual(['big', 32, 'EM_MIPS']);
    });
  },
);

/**
 * ARM PLT stubs as LLVM's own disassembler decodes them (`add r12, pc, #a, #ra; add r12, r12, #b, #rb;
 * ldr pc, [r12, #c]!`), resolved to names through `llvm-readelf -r`: name → stub address.
 */
function armStubsFromLlvm(path: string): Map<string, number> {
  const slots = new Map<number, string>();
  for (const line of execFileSync('llvm-readelf', ['-r', path], { encoding: 'utf8' }).split('\n')) {
    const match = /^([0-9a-f]+)\s+[0-9a-f]+\s+R_ARM_JUMP_SLOT\s+[0-9a-f]+\s+(\S+)/.exec(line);
    if (match) slots.set(Number.parseInt(match[1]!, 16), match[2]!);
  }
  const lines = execFileSync('llvm-objdump', ['-d', '--section=.plt', path], { encoding: 'utf8' }).split('\n');
  const rotated = (value: number, rotation: number) =>
    rotation === 0 ? value : ((value >>> rotation) | (value << (32 - rotation))) >>> 0;
  const stubs = new Map<string, number>();
  for (let i = 0; i + 2 < lines.length; i += 1) {
    const a = /^\s*([0-9a-f]+):.*\tadd\tr12, pc, #(\d+), #(\d+)/.exec(lines[i]!);
    const b = /\tadd\tr12, r12, #(\d+), #(\d+)/.exec(lines[i + 1]!);
    const c = /\tldr\tpc, \[r12, #(\d+)\]!/.exec(lines[i + 2]!);
    if (!a || !b || !c) continue;
    const pc = Number.parseInt(a[1]!, 16);
    const slot = pc + 8 + rotated(Number(a[2]), Number(a[3])) + rotated(Number(b[1]), Number(b[2])) + Number(c[1]);
    const name = slots.get(slot);
    if (name) stubs.set(name, pc);
  }
  return stubs;
}

skipUnless(toolsMissing('clang', 'ld.lld', 'llvm-readobj', 'llvm-readelf', 'llvm-objdump'))(
  'ELF layout (ARM, ld.lld)',
  () => {
    it('should match llvm-readobj and resolve A32 PLT stubs as LLVM decodes them', () => {
      const path = fx.elfArmShared();
      const layout = expectMatchesReadobj(path);
      expect([layout.architecture, layout.bits, layout.machine]).toEqual(['arm', 32, 'EM_ARM']);
      const expected = armStubsFromLlvm(path);
      expect(expected.size).toBeGreaterThanOrEqual(4);
      expect(new Map(layout.imports.filter((i) => i.address !== null).map((i) => [i.name, i.address]))).toEqual(
        expected,
      );
    });
  },
);

const systemFiles = ['/usr/bin/ls', '/usr/lib/x86_64-linux-gnu/libstdc++.so.6'].filter((p) => existsSync(p));
skipUnless(
  toolsMissing('llvm-readobj', 'objdump') ??
    (systemFiles.length > 0 ? null : 'no system binaries at the expected paths'),
)('ELF layout (system binaries)', () => {
  it.each(systemFiles)('should match llvm-readobj on %s', (path) => {
    const layout = expectMatchesReadobj(path);
    expectPltMatchesObjdump(layout, path, 1);
  });
});

import { expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { inspectBinaryLayoutTool, parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { executeTool } from '@rea/provider-kit';
import { quietToolContext, skipUnless, toolsMissing } from '@rea/test-helpers';
import * as fx from './fixtures.js';
import { blocks, field, num, readobjText } from './reference.js';

/** Sections, symbols, needed libraries and header facts agree with llvm-readobj. */
function expectMatchesReadobj(
  path: string,
  layout = parseBinaryLayout(readFileSync(path)),
  sliceOffset = 0,
): BinaryLayout {
  const ref = readobjText(path, ['--file-headers', '--sections', '--symbols', '--needed-libs']);
  const sections = blocks(ref, 'Section');
  expect(layout.sections.map((s) => [s.name, s.address, s.size, s.offset])).toEqual(
    sections.map((s) => [
      `${field(s, 'Segment').split(' ')[0]},${field(s, 'Name').split(' ')[0]}`,
      num(field(s, 'Address')),
      num(field(s, 'Size')),
      num(field(s, 'Offset')) + (num(field(s, 'Offset')) === 0 ? 0 : sliceOffset),
    ]),
  );
  expect(layout.symbols.map((s) => [s.name, s.address, s.defined, s.binding !== 'local'])).toEqual(
    blocks(ref, 'Symbol').map((s) => [
      field(s, 'Name').replace(/ \(\d+\)$/, ''),
      num(field(s, 'Value')),
      !field(s, 'Type').startsWith('Undef'),
      s.fields.has('Extern'),
    ]),
  );
  const needed = ref.children.find((c) => c.name === 'NeededLibraries');
  // llvm-readobj lists a dylib's own install name (LC_ID_DYLIB) among the needed libraries.
  expect(layout.libraries).toEqual([...(needed?.fields.keys() ?? [])].filter((name) => name !== layout.linkage.soname));
  return layout;
}

/** The exports trie as `llvm-objdump --macho --exports-trie` lists it. */
function exportsFromObjdump(path: string): Array<{ name: string; address: number }> {
  const text = execFileSync('llvm-objdump', ['--macho', '--exports-trie', path], { encoding: 'utf8' });
  return [...text.matchAll(/^0x([0-9a-f]+)\s+(\S+)$/gim)].map((m) => ({
    name: m[2]!,
    address: Number.parseInt(m[1]!, 16),
  }));
}

/** `__stubs` entries as `llvm-objdump --macho --indirect-symbols` lists them: name → address. */
function stubsFromObjdump(path: string, arch?: string): Map<string, number> {
  const text = execFileSync(
    'llvm-objdump',
    ['--macho', '--indirect-symbols', ...(arch ? [`--arch=${arch}`] : []), path],
    {
      encoding: 'utf8',
    },
  );
  const stubs = new Map<string, number>();
  let inStubs = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('Indirect symbols for')) inStubs = line.includes('__stubs');
    const match = /^0x([0-9a-f]+)\s+\d+\s+(\S+)$/.exec(line);
    if (inStubs && match) stubs.set(match[2]!, Number.parseInt(match[1]!, 16));
  }
  return stubs;
}

skipUnless(toolsMissing('clang', 'ld64.lld-14', 'llvm-readobj', 'llvm-objdump'))(
  'Mach-O layout (clang + ld64.lld)',
  () => {
    it('should match llvm-readobj on an x86_64 executable and resolve __stubs through the indirect symbol table', () => {
      const path = fx.machoX64();
      const layout = expectMatchesReadobj(path);
      expect([layout.format, layout.architecture, layout.bits, layout.header.fileType]).toEqual([
        'macho',
        'x86_64',
        64,
        'MH_EXECUTE',
      ]);
      const stubs = stubsFromObjdump(path);
      expect(stubs.size).toBeGreaterThanOrEqual(4);
      expect(new Map(layout.imports.filter((i) => i.address !== null).map((i) => [i.name, i.address]))).toEqual(stubs);
      expect(layout.imports.find((i) => i.name === '_puts')?.library).toBe('/usr/lib/libSystem.B.dylib');
      expect(layout.linkage).toMatchObject({ kind: 'dynamic', interpreter: '/usr/lib/dyld' });
      expect(layout.imageBase).toBe(0x100000000);
      // LC_MAIN: the entry is _main.
      expect(layout.entry).toBe(layout.symbols.find((s) => s.name === '_main')!.address);
      expect(layout.mitigations).toMatchObject({ pie: true, nx: true, stackCanary: false, relro: null });
      expect(layout.exports.map((e) => e.name)).toEqual(expect.arrayContaining(['_add', '_main', '_counter']));
      expect(layout.exports).toEqual(exportsFromObjdump(path));
    });

    it('should read arm64 code, the stack protector and the code signature ld64.lld adds', () => {
      const path = fx.machoArm64();
      const layout = expectMatchesReadobj(path);
      expect([layout.architecture, layout.machine]).toEqual(['aarch64', 'CPU_TYPE_ARM64']);
      expect(new Map(layout.imports.filter((i) => i.address !== null).map((i) => [i.name, i.address]))).toEqual(
        stubsFromObjdump(path),
      );
      const loadCommands = execFileSync('llvm-objdump', ['--macho', '--private-headers', path], { encoding: 'utf8' });
      expect(layout.mitigations.codeSignature).toBe(loadCommands.includes('LC_CODE_SIGNATURE'));
      expect(layout.mitigations.stackCanary).toBe(true);
      // The first instruction of _add, read by address, is what llvm-objdump disassembles there.
      const add = layout.symbols.find((s) => s.name === '_add')!;
      const dump = execFileSync(
        'llvm-objdump',
        ['-d', `--start-address=${add.address}`, `--stop-address=${add.address + 4}`, path],
        { encoding: 'utf8' },
      );
      const word = /^\s*[0-9a-f]+:\s+((?:[0-9a-f]{2} ){4})/m
        .exec(dump)![1]!
        .trim()
        .split(' ')
        .map((b) => Number.parseInt(b, 16));
      expect([...layout.readAt(add.address, 4)!]).toEqual(word);
    });

    it('should report the install name and rpath of a dylib', async () => {
      const layout = expectMatchesReadobj(fx.machoDylib());
      expect(layout.header.fileType).toBe('MH_DYLIB');
      expect(layout.linkage).toMatchObject({ soname: '@rpath/libhello.dylib', rpath: ['@loader_path/../lib'] });
      expect(layout.exports).toEqual(exportsFromObjdump(fx.machoDylib()));
      expect(layout.exports.map((e) => e.name).sort()).toEqual(['_add', '_counter', '_greeting', '_main']);
      expect(layout.entry).toBeNull();
      // MH_PIE is an executable's flag, absent from a dylib's header (llvm-readobj); a dylib still slides.
      const header = execFileSync('llvm-readobj', ['--file-headers', fx.machoDylib()], { encoding: 'utf8' });
      expect(header).toMatch(/FileType: DynamicLibrary/);
      expect(header).not.toMatch(/MH_PIE/);
      expect([layout.mitigations.pie, layout.mitigations.aslr]).toEqual([false, true]);
      const outcome = await executeTool(
        inspectBinaryLayoutTool,
        { path: fx.machoDylib(), facet: 'mitigations' },
        quietToolContext(),
      );
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      expect(outcome.record.limitations.filter((l) => l.kind === 'shared-object').map((l) => l.message)).toEqual([
        expect.stringContaining('MH_DYLIB, not an executable'),
      ]);
    });

    it('should parse a 32-bit i386 object', () => {
      const layout = expectMatchesReadobj(fx.machoI386Object());
      expect([layout.bits, layout.architecture, layout.header.fileType]).toEqual([32, 'x86', 'MH_OBJECT']);
      expect(layout.mitigations.pie).toBeNull();
    });
  },
);

skipUnless(toolsMissing('clang', 'ld64.lld-14', 'llvm-lipo-14', 'llvm-readobj'))('Mach-O layout (universal)', () => {
  it('should list the slices of a universal binary and describe the x86_64 slice', () => {
    const path = fx.machoFat();
    const layout = parseBinaryLayout(readFileSync(path));
    const info = execFileSync('llvm-objdump', ['--macho', '--universal-headers', path], { encoding: 'utf8' });
    const expected = [...info.matchAll(/architecture (\S+)\n(?:.*\n)*?\s+offset (\d+)\n\s+size (\d+)/g)].map((m) => ({
      architecture: m[1]!,
      offset: Number(m[2]),
      size: Number(m[3]),
    }));
    expect(layout.format).toBe('macho-fat');
    expect(layout.slices).toEqual(expected);
    expect(layout.architecture).toBe('x86_64');
    const x64 = expected.find((s) => s.architecture === 'x86_64')!;
    expectMatchesReadobj(fx.machoX64(), layout, x64.offset);
  });
});

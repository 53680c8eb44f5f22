import { expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import * as fx from './fixtures.js';
import { blocks, field, num, readobjText } from './reference.js';

/** Sections, COFF symbols, imports, exports and header facts agree with llvm-readobj. */
function expectMatchesReadobj(path: string): BinaryLayout {
  const layout = parseBinaryLayout(readFileSync(path));
  const ref = readobjText(path, ['--file-headers', '--sections', '--symbols', '--coff-imports', '--coff-exports']);
  const optional = blocks(ref, 'ImageOptionalHeader')[0]!;
  const imageBase = num(field(optional, 'ImageBase'));
  expect(layout.format).toBe('pe');
  expect(layout.imageBase).toBe(imageBase);
  expect(layout.bits).toBe(field(optional, 'Magic') === '0x20B' ? 64 : 32);
  expect(layout.machine).toBe(field(blocks(ref, 'ImageFileHeader')[0]!, 'Machine').split(' ')[0]);
  const entryRva = num(field(optional, 'AddressOfEntryPoint'));
  expect(layout.entry).toBe(entryRva === 0 ? null : imageBase + entryRva);
  expect(layout.header.abi).toBe(field(optional, 'Subsystem').split(' ')[0]);

  const sections = blocks(ref, 'Section');
  expect(layout.sections.map((s) => [s.name, s.address, s.size, s.fileSize, s.offset])).toEqual(
    sections.map((s) => [
      field(s, 'Name').replace(/ \(.*\)$/, ''),
      imageBase + num(field(s, 'VirtualAddress')),
      num(field(s, 'VirtualSize')),
      num(field(s, 'RawDataSize')),
      num(field(s, 'PointerToRawData')),
    ]),
  );
  expect(layout.sections.map((s) => [s.flags.execute, s.flags.write])).toEqual(
    sections.map((s) => {
      const flags = num(
        field(
          s.children.find((c) => c.name === 'Characteristics')!,
          'value',
        ),
      );
      return [(flags & 0x20000000) !== 0, (flags & 0x80000000) !== 0];
    }),
  );

  const sectionVa = new Map(
    sections.map((s) => [num(field(s, 'Number')), imageBase + num(field(s, 'VirtualAddress'))]),
  );
  expect(
    layout.symbols
      .filter((s) => s.source === 'symtab')
      .map((s) => [s.name, s.address, s.defined, s.kind === 'function']),
  ).toEqual(
    blocks(ref, 'Symbol').map((s) => {
      const section = /\((-?\d+)\)$/.exec(field(s, 'Section'))![1]!;
      const number = Number(section);
      const value = num(field(s, 'Value'));
      return [
        field(s, 'Name'),
        number > 0 ? sectionVa.get(number)! + value : value,
        number !== 0,
        field(s, 'ComplexType').startsWith('Function'),
      ];
    }),
  );

  const importBlocks = blocks(ref, 'Import');
  expect(layout.libraries).toEqual(importBlocks.map((b) => field(b, 'Name')));
  const expectedImports = importBlocks.flatMap((b) => {
    const iat = imageBase + num(field(b, 'ImportAddressTableRVA'));
    return (b.fields.get('Symbol') ?? []).map((text, i) => ({
      name: text.replace(/ \(\d+\)$/, ''),
      library: field(b, 'Name'),
      address: iat + i * (layout.bits / 8),
    }));
  });
  expect(layout.imports).toEqual(expectedImports);
  // llvm-readobj also lists unused (zero) address-table slots; REA skips them.
  expect(layout.exports.map(({ name, address, ordinal }) => ({ name, address, ordinal }))).toEqual(
    blocks(ref, 'Export')
      .filter((b) => num(field(b, 'RVA')) !== 0)
      .map((b) => ({
        name: field(b, 'Name') || null,
        address: imageBase + num(field(b, 'RVA')),
        ordinal: num(field(b, 'Ordinal')),
      })),
  );
  return layout;
}

/** The export address table as GNU `objdump -p` prints it: ordinal → [RVA, forwarder or null]. */
function exportTableFromObjdump(path: string): Map<number, [number, string | null]> {
  const text = execFileSync('x86_64-w64-mingw32-objdump', ['-p', path], { encoding: 'utf8' });
  const table = new Map<number, [number, string | null]>();
  for (const line of text.split('\n')) {
    const match = /^\s*\[\s*\d+\] \+base\[\s*(\d+)\] ([0-9a-f]+) (?:Export RVA|Forwarder RVA -- (\S+))$/.exec(line);
    if (match) table.set(Number(match[1]), [Number.parseInt(match[2]!, 16), match[3] ?? null]);
  }
  return table;
}

skipUnless(toolsMissing('x86_64-w64-mingw32-gcc', 'x86_64-w64-mingw32-objcopy', 'llvm-readobj'))(
  'PE layout (mingw-w64)',
  () => {
    it('should match llvm-readobj on a PE32+ executable and report its IAT slots', () => {
      const layout = expectMatchesReadobj(fx.peX64Exe());
      expect([layout.architecture, layout.header.fileType, layout.dotnet]).toEqual(['x86_64', 'exe', false]);
      expect(layout.imports.filter((i) => i.library === 'msvcrt.dll').map((i) => i.name)).toEqual(
        expect.arrayContaining(['puts', 'printf', 'strlen', 'malloc', 'free']),
      );
      // mingw-w64 links with --dynamicbase, --nxcompat and --high-entropy-va by default (llvm-readobj agrees above).
      expect(layout.mitigations).toMatchObject({
        aslr: true,
        dep: true,
        nx: true,
        highEntropyVa: true,
        cfg: false,
        codeSignature: false,
        relro: null,
      });
      expect(layout.linkage).toMatchObject({ kind: 'dynamic', interpreter: null });
      expect(layout.symbols.find((s) => s.name === 'add' && s.source === 'symtab')).toMatchObject({
        kind: 'function',
        binding: 'global',
      });
    });

    it('should list the exports of a DLL and name it', () => {
      const layout = expectMatchesReadobj(fx.peX64Dll());
      expect(layout.header.fileType).toBe('dll');
      expect(layout.exports.map((e) => e.name)).toEqual(['add', 'counter', 'greeting', 'main']);
      expect(layout.linkage.soname).toBe('hello-x64.dll');
      const text = layout.sections.find((s) => s.name === '.text')!;
      const add = layout.exports.find((e) => e.name === 'add')!;
      expect(add.address >= text.address && add.address < text.address + text.size).toBe(true);
      expect(layout.symbols.find((s) => s.source === 'export' && s.name === 'add')?.kind).toBe('function');
      expect(layout.symbols.find((s) => s.source === 'export' && s.name === 'counter')?.kind).toBe('object');
    });

    it('should report exports by ordinal only (name null) and forwarders, as llvm-readobj and objdump -p list them', () => {
      const path = fx.peX64OrdinalDll();
      const layout = expectMatchesReadobj(path);
      const table = exportTableFromObjdump(path);
      expect(table.size).toBe(6);
      expect(
        new Map(layout.exports.map((e) => [e.ordinal!, [e.address - layout.imageBase, e.forwarder ?? null]])),
      ).toEqual(table);
      // From ordinals.def: NONAME exports at @5 and @9, a named forwarder at @12, a NONAME one at @13.
      expect(layout.exports.filter((e) => e.name === null).map((e) => e.ordinal)).toEqual([5, 9, 13]);
      expect(layout.exports.find((e) => e.ordinal === 12)).toMatchObject({
        name: 'forwarded_len',
        forwarder: 'msvcrt.strlen',
      });
      expect(layout.exports.find((e) => e.ordinal === 13)).toMatchObject({ name: null, forwarder: 'msvcrt.free' });
      expect(layout.exports.find((e) => e.ordinal === 1)).toMatchObject({ name: 'named_add', forwarder: null });
      // Nameless exports are not symbols; named ones are.
      expect(layout.symbols.filter((s) => s.source === 'export').map((s) => s.name)).toEqual([
        'named_add',
        'shown_data',
        'forwarded_len',
      ]);
    });

    it('should read section bytes by virtual address exactly as GNU objcopy dumps them', async () => {
      const path = fx.peX64Exe();
      const layout = parseBinaryLayout(readFileSync(path));
      const text = layout.sections.find((s) => s.name === '.text')!;
      await withTempDir((dir) => {
        execFileSync('x86_64-w64-mingw32-objcopy', ['-O', 'binary', '-j', '.text', path, join(dir, 'text.bin')]);
        const expected = readFileSync(join(dir, 'text.bin'));
        expect(expected.length).toBe(text.size);
        expect(Buffer.from(layout.readAt(text.address, text.size)!).equals(expected)).toBe(true);
        expect(layout.readAt(text.address + text.size - 1, 2)).toBeNull();
      });
    });

    it('should detect a .NET CLI header and a certificate table when the data directories declare them', async () => {
      const bytes = Buffer.from(readFileSync(fx.peX64Exe()));
      const pe = bytes.readUInt32LE(0x3c);
      const directories = pe + 24 + 112;
      const rdata = parseBinaryLayout(bytes).sections.find((s) => s.name === '.rdata')!;
      const imageBase = parseBinaryLayout(bytes).imageBase;
      // A 72-byte CLI header (cb = 72, runtime 2.5) at the start of .rdata, and a certificate blob at the end.
      bytes.writeUInt32LE(72, rdata.offset);
      bytes.writeUInt16LE(2, rdata.offset + 4);
      bytes.writeUInt16LE(5, rdata.offset + 6);
      bytes.writeUInt32LE(rdata.address - imageBase, directories + 14 * 8);
      bytes.writeUInt32LE(72, directories + 14 * 8 + 4);
      const certificate = Buffer.alloc(16);
      certificate.writeUInt32LE(16, 0);
      certificate.writeUInt16LE(0x0200, 4);
      certificate.writeUInt16LE(0x0002, 6);
      const signed = Buffer.concat([bytes, certificate]);
      signed.writeUInt32LE(bytes.length, directories + 4 * 8);
      signed.writeUInt32LE(16, directories + 4 * 8 + 4);
      await withTempDir((dir) => {
        const path = join(dir, 'patched.exe');
        writeFileSync(path, signed);
        const optional = blocks(readobjText(path, ['--file-headers']), 'DataDirectory')[0]!;
        expect(num(field(optional, 'CLRRuntimeHeaderSize'))).toBe(72);
        expect(num(field(optional, 'CertificateTableSize'))).toBe(16);
        const layout = parseBinaryLayout(signed);
        expect(layout.dotnet).toBe(true);
        expect(layout.mitigations.codeSignature).toBe(true);
      });
    });
  },
);

skipUnless(toolsMissing('clang', 'lld-link', 'llvm-dlltool', 'llvm-readobj'))('PE layout (PE32, lld-link)', () => {
  it('should match llvm-readobj on a PE32 image and report CFG, SafeSEH and the IAT', () => {
    const layout = expectMatchesReadobj(fx.peI386Exe());
    expect([layout.architecture, layout.bits]).toEqual(['x86', 32]);
    expect(layout.libraries).toEqual(['msvcrt.dll']);
    // Linked with /guard:cf; lld-link marks images without SEH handlers NO_SEH; highEntropyVa is 64-bit only.
    expect(layout.mitigations).toMatchObject({ cfg: true, safeSeh: true, highEntropyVa: null, aslr: true, dep: true });
  });
});

import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { isReaError } from '@rea/evidence';
import { parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { skipUnless, toolsMissing } from '@rea/test-helpers';
import * as fx from './fixtures.js';

function refusal(bytes: Uint8Array, signal?: AbortSignal): { code: string; details: Record<string, unknown> } {
  try {
    parseBinaryLayout(bytes, signal ? { signal } : {});
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected the parser to refuse the input');
}

/** Exercises everything a consumer touches on a parsed layout, so lazy paths cannot hide a crash. */
function touch(layout: BinaryLayout): void {
  JSON.stringify({ ...layout, readAt: undefined });
  for (const address of [layout.entry ?? 0, layout.imageBase, ...layout.sections.slice(0, 8).map((s) => s.address)]) {
    layout.readAt(address, 16);
  }
}

describe('parseBinaryLayout on hostile input (hand-made)', () => {
  it('should refuse bytes of no known format as unknown-format', () => {
    for (const bytes of [
      new Uint8Array(0),
      new Uint8Array([0x7f]),
      Buffer.from('#!/bin/sh\necho hi\n'),
      new Uint8Array(4096),
    ]) {
      expect(refusal(bytes)).toMatchObject({ code: 'unsupported_target', details: { reason: 'unknown-format' } });
    }
  });

  it('should refuse a Java class file that shares the fat Mach-O magic', () => {
    const javaClass = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x34, 0x00, 0x1d]);
    expect(refusal(javaClass).details['reason']).toBe('unknown-format');
  });

  it('should honour an aborted signal before parsing', () => {
    const controller = new AbortController();
    controller.abort();
    expect(refusal(Buffer.from('\x7fELF'), controller.signal).code).toBe('cancelled');
  });

  it('should refuse random bytes behind every magic with a typed error only', () => {
    const magics = [
      [0x7f, 0x45, 0x4c, 0x46],
      [0x4d, 0x5a],
      [0xcf, 0xfa, 0xed, 0xfe],
      [0xfe, 0xed, 0xfa, 0xce],
      [0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...magics), fc.uint8Array({ maxLength: 2048 }), (magic, tail) => {
        const bytes = new Uint8Array([...magic, ...tail]);
        try {
          touch(parseBinaryLayout(bytes));
        } catch (error) {
          expect(isReaError(error)).toBe(true);
          expect((error as { code: string }).code).toBe('unsupported_target');
          expect((error as { details: Record<string, unknown> }).details['cause']).toBeUndefined();
        }
      }),
      { numRuns: 500 },
    );
  });
});

skipUnless(toolsMissing('gcc', 'clang', 'x86_64-w64-mingw32-gcc', 'ld64.lld-14', 'llvm-lipo-14', 'ld.lld'))(
  'parseBinaryLayout on hostile input (mutated real binaries)',
  () => {
    const load = (build: () => string) => Buffer.from(readFileSync(build()));

    it('should refuse ELF headers that lie', () => {
      const elf = load(fx.elfX64Pie);
      const patched = (edit: (b: Buffer) => void) => {
        const copy = Buffer.from(elf);
        edit(copy);
        return copy;
      };
      // Section header table past the end of the file.
      expect(refusal(patched((b) => b.writeBigUInt64LE(BigInt(b.length + 64), 0x28))).details).toMatchObject({
        format: 'elf',
        reason: 'truncated',
      });
      // A huge section count.
      expect(refusal(patched((b) => b.writeUInt16LE(0xfff0, 0x3c))).details['reason']).toBe('truncated');
      // Section header entries smaller than the format allows.
      expect(refusal(patched((b) => b.writeUInt16LE(8, 0x3a))).details['reason']).toBe('malformed');
      // A section-name table index out of range.
      expect(refusal(patched((b) => b.writeUInt16LE(b.readUInt16LE(0x3c) + 5, 0x3e))).details['reason']).toBe(
        'malformed',
      );
      // An entry point no JavaScript number can hold exactly.
      expect(refusal(patched((b) => b.writeBigUInt64LE(0xffffffff80000000n, 0x18))).details['reason']).toBe(
        'value-out-of-range',
      );
      // An impossible class and byte order.
      expect(refusal(patched((b) => (b[4] = 3))).details['reason']).toBe('malformed');
      expect(refusal(patched((b) => (b[5] = 0))).details['reason']).toBe('malformed');
      // Truncated in the middle of the program headers.
      expect(refusal(elf.subarray(0, 100)).details['reason']).toBe('truncated');
    });

    it('should refuse a symbol table that points past the end, and keep overlapping sections as declared', () => {
      const elf = load(fx.elfX64Pie);
      const layout = parseBinaryLayout(elf);
      const shoff = Number(elf.readBigUInt64LE(0x28));
      const index = layout.sections.findIndex((s) => s.type === 'SHT_DYNSYM') + 1;
      const lying = Buffer.from(elf);
      lying.writeBigUInt64LE(BigInt(elf.length - 8), shoff + index * 64 + 24);
      expect(refusal(lying).details['reason']).toBe('truncated');
      // Two sections claiming the same bytes are reported as they are declared; nothing is merged.
      const overlapping = Buffer.from(elf);
      const text = layout.sections.findIndex((s) => s.name === '.text') + 1;
      const rodata = layout.sections.findIndex((s) => s.name === '.rodata') + 1;
      overlapping.copy(overlapping, shoff + rodata * 64 + 16, shoff + text * 64 + 16, shoff + text * 64 + 40);
      const parsed = parseBinaryLayout(overlapping);
      expect(parsed.sections[rodata - 1]).toMatchObject({
        address: layout.sections[text - 1]!.address,
        offset: layout.sections[text - 1]!.offset,
      });
    });

    it('should report an unknown machine as architecture "unknown" with its raw number', () => {
      const elf = load(fx.elfX64Object);
      elf.writeUInt16LE(0x1234, 0x12);
      const layout = parseBinaryLayout(elf);
      expect([layout.architecture, layout.machine]).toEqual(['unknown', 'EM_4660']);
    });

    it('should refuse PE headers that lie', () => {
      const pe = load(fx.peX64Exe);
      const at = pe.readUInt32LE(0x3c);
      const patched = (edit: (b: Buffer) => void) => {
        const copy = Buffer.from(pe);
        edit(copy);
        return copy;
      };
      expect(refusal(patched((b) => b.writeUInt32LE(b.length + 10, 0x3c))).details).toMatchObject({
        format: 'pe',
        reason: 'truncated',
      });
      expect(refusal(patched((b) => b.writeUInt16LE(0xffff, at + 6))).details['reason']).toBe('malformed');
      expect(refusal(patched((b) => b.writeUInt16LE(0x1234, at + 24))).details['reason']).toBe('malformed');
      // The import directory moved past every section.
      expect(refusal(patched((b) => b.writeUInt32LE(0x7fff0000, at + 24 + 112 + 8))).details['reason']).toBe(
        'truncated',
      );
      expect(refusal(pe.subarray(0, at + 30)).details['reason']).toBe('truncated');
      // A DOS stub without a PE header is not a PE image.
      expect(refusal(patched((b) => b.write('NE', at))).details['reason']).toBe('unknown-format');
    });

    it('should refuse Mach-O headers that lie', () => {
      const macho = load(fx.machoX64);
      const patched = (edit: (b: Buffer) => void) => {
        const copy = Buffer.from(macho);
        edit(copy);
        return copy;
      };
      expect(refusal(patched((b) => b.writeUInt32LE(0x7fffffff, 20))).details).toMatchObject({
        format: 'macho',
        reason: 'truncated',
      });
      expect(refusal(patched((b) => b.writeUInt32LE(100000, 16))).details['reason']).toBe('malformed');
      expect(refusal(patched((b) => b.writeUInt32LE(0, 32 + 4))).details['reason']).toBe('malformed');
      expect(refusal(macho.subarray(0, 40)).details['reason']).toBe('truncated');
    });

    it('should fall back to the symbol table when the exports trie loops back on itself', () => {
      const path = fx.machoX64();
      const macho = load(() => path);
      const headers = execFileSync('llvm-objdump', ['--macho', '--private-headers', path], { encoding: 'utf8' });
      const trie = Number(/export_off (\d+)/.exec(headers)![1]);
      // Root node: terminal size 0, one child, edge "_", then the child's offset: point it at the root.
      expect([macho[trie], macho[trie + 1]]).toEqual([0, 1]);
      const edgeEnd = macho.indexOf(0, trie + 2);
      const looping = Buffer.from(macho);
      looping[edgeEnd + 1] = 0;
      const layout = parseBinaryLayout(looping);
      const fromSymbols = layout.symbols.filter((s) => s.defined && s.binding !== 'local' && s.kind !== 'other');
      expect(layout.exports.map((e) => e.name)).toEqual(fromSymbols.map((s) => s.name));
      expect(parseBinaryLayout(macho).exports.map((e) => e.name)).toContain('__mh_execute_header');
    });

    it('should refuse universal headers whose slices overlap or run past the end', () => {
      const fat = load(fx.machoFat);
      const overlapping = Buffer.from(fat);
      overlapping.writeUInt32BE(fat.readUInt32BE(8 + 8), 8 + 20 + 8);
      expect(refusal(overlapping).details).toMatchObject({ format: 'macho-fat', reason: 'malformed' });
      const past = Buffer.from(fat);
      past.writeUInt32BE(fat.length, 8 + 12);
      expect(refusal(past).details['reason']).toBe('truncated');
    });

    it('should let only typed errors escape from mutated real binaries, each parse finishing promptly', () => {
      const corpus = [
        load(fx.elfX64Pie),
        load(fx.elfI386Exec),
        load(fx.elfPpcShared),
        load(fx.peX64Exe),
        load(fx.peX64Dll),
        load(fx.machoX64),
        load(fx.machoFat),
      ];
      // Mutations concentrate on the first 4 KiB, where every header and table directory lives.
      const mutation = fc.record({
        file: fc.nat({ max: corpus.length - 1 }),
        writes: fc.array(
          fc.record({
            at: fc.oneof(fc.nat({ max: 4095 }), fc.nat()),
            value: fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0, 0xff, 0x7f, 0x80)),
            wide: fc.boolean(),
          }),
          { minLength: 1, maxLength: 16 },
        ),
        truncate: fc.option(fc.nat(), { nil: undefined }),
      });
      let slowest = 0;
      fc.assert(
        fc.property(mutation, ({ file, writes, truncate }) => {
          const original = corpus[file]!;
          const bytes = Buffer.from(
            truncate === undefined ? original : original.subarray(0, truncate % original.length),
          );
          for (const { at, value, wide } of writes) {
            const position = at % Math.max(1, bytes.length);
            if (wide && position + 4 <= bytes.length)
              bytes.writeUInt32LE(value === 0xff ? 0xffffffff : value * 0x01010101, position);
            else if (position < bytes.length) bytes[position] = value;
          }
          const started = performance.now();
          try {
            touch(parseBinaryLayout(bytes));
          } catch (error) {
            if (!isReaError(error)) throw error;
            expect(['unsupported_target']).toContain(error.code);
            // A refusal the parser did not anticipate (an exception caught at the boundary) is a defect.
            expect(error.details['cause']).toBeUndefined();
          }
          slowest = Math.max(slowest, performance.now() - started);
        }),
        // REA_FUZZ_RUNS widens the search (with a random seed) for a longer local run.
        process.env['REA_FUZZ_RUNS']
          ? { numRuns: Number(process.env['REA_FUZZ_RUNS']) }
          : { numRuns: 1500, seed: 20261130 },
      );
      // A hang detector, not a benchmark: the whole corpus parses in milliseconds.
      expect(slowest).toBeLessThan(5000);
    });
  },
);

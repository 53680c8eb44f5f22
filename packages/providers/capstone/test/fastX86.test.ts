/*
 * The fast x86-64 reader measures instructions for discovery without Capstone. Every form it accepts
 * must be exactly what Capstone decodes: the same length, and the same semantics as the text
 * classifier `classifyX86` derives from Capstone's printed instruction. Checked two ways:
 *   - over an enumeration of encodings (prefix mixes, REX, every opcode of the one-byte, 0F, 0F38 and
 *     0F3A maps, ModRM/SIB forms, positive and negative displacements and immediates), each form the
 *     reader accepts against Capstone decoding the same bytes;
 *   - over whole programs: the instruction table of a sweep with the reader equals the table of a
 *     sweep with Capstone alone, column by column.
 * The modules are internal, so they are imported from the package source.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { CAPSTONE_ENGINE_VERSION, decoderSource, engineVersion } from '../src/engine.js';
import type { Decoder, DecoderSource } from '../src/engine.js';
import { Flow, RefKind, classifyX86 } from '../src/analysis/classify.js';
import type { Semantics } from '../src/analysis/classify.js';
import { fast, readX86_32, readX86_64 } from '../src/analysis/fastX86.js';
import { sweep } from '../src/analysis/sweep.js';
import type { InstructionTable } from '../src/analysis/sweep.js';
import { FIXTURES, freestandingX86 } from './support.js';

const ADDRESS = 0x401000;
const same = (a: number, b: number) => a === b || (Number.isNaN(a) && Number.isNaN(b));

let source: DecoderSource;
let decoder: Decoder;
let source32: DecoderSource;
let decoder32: Decoder;
beforeAll(async () => {
  source = decoderSource('x86_64');
  decoder = await source.get();
  source32 = decoderSource('x86');
  decoder32 = await source32.get();
});
afterAll(() => {
  source.close();
  source32.close();
});

/** Capstone's reading of the first instruction of `bytes`: its size and the classifier's semantics. */
function capstone(bytes: Uint8Array, bits: 64 | 32): { size: number; text: string; sem: Semantics } | null {
  let result: { size: number; text: string; sem: Semantics } | null = null;
  (bits === 64 ? decoder : decoder32).scan(
    bytes,
    ADDRESS,
    (address, size, insn) => {
      const mnemonic = insn.mnemonic();
      const operands = insn.operands();
      result = { size, text: `${mnemonic} ${operands}`, sem: classifyX86(mnemonic, operands, address, size, bits) };
    },
    1,
  );
  return result;
}

const PREFIXES = [
  [],
  [0x66],
  [0xf2],
  [0xf3],
  [0xf0],
  [0x2e],
  [0x3e],
  [0x64],
  [0x65],
  [0x66, 0x66],
  [0x66, 0xf3],
  [0x66, 0x2e],
  [0xf0, 0x66],
  [0x26],
  [0x67],
  [0xf3, 0x2e, 0x66],
  [0x36],
];
const REX = [[], [0x48], [0x45], [0x42], [0x40], [0x4c]];
const OPCODES: number[][] = [];
for (let op = 0; op < 256; op += 1) {
  OPCODES.push([op], [0x0f, op], [0x0f, 0x38, op], [0x0f, 0x3a, op]);
}
/** ModRM (and SIB) forms: register, [rax], [rip+d32], [rsp], [d32] absolute, [rax*8+d32], [rax*1+d32], [rax+d8], [rax+rcx*4+d32]. */
const MODRM_FORMS: number[][] = [];
for (let reg = 0; reg < 8; reg += 1) {
  const r = reg << 3;
  for (let rm = 0; rm < 8; rm += 1) MODRM_FORMS.push([0xc0 | r | rm]);
  MODRM_FORMS.push(
    [r],
    [r | 5],
    [r | 4, 0x24],
    [r | 4, 0x25],
    [r | 4, 0xc5],
    [r | 4, 0x05],
    [0x40 | r],
    [0x80 | r | 4, 0x88],
  );
}
/** What follows: displacement and immediate bytes, positive, negative, small. */
const TAILS = [
  [0x78, 0x56, 0x34, 0x12, 0x21, 0x43, 0x65, 0x07, 0x11, 0x22, 0x33],
  [0xf0, 0xff, 0xff, 0xff, 0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
  [0x05, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
  [0x00, 0x10, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00],
];

it("the version reported without loading the engine is the loaded engine's", async () => {
  expect(await engineVersion()).toBe(CAPSTONE_ENGINE_VERSION);
});

describe('fast x86 reader against Capstone, form by form', () => {
  it.each([
    [64, 3_000_000],
    [32, 500_000],
  ] as const)('%i-bit mode: every accepted encoding has Capstone length and classifier semantics', (bits, least) => {
    const read = bits === 64 ? readX86_64 : readX86_32;
    // In 32-bit mode 40-4F are opcodes (inc/dec), enumerated with the one-byte map.
    const rexes = bits === 64 ? REX : [[]];
    let accepted = 0;
    let compared = 0;
    const mismatches: string[] = [];
    const flows = new Map<number, number>();
    const refKinds = new Map<number, number>();
    const seen = new Set<string>();
    const buffer = new Uint8Array(32);
    const put = (at: number, values: number[]) => {
      buffer.set(values, at);
      return at + values.length;
    };
    for (const opcode of OPCODES) {
      for (const prefix of PREFIXES) {
        for (const rex of rexes) {
          const head = put(put(put(0, prefix), rex), opcode);
          for (const modrm of MODRM_FORMS) {
            const body = put(head, modrm);
            for (const tail of TAILS) {
              const length = put(body, tail);
              const bytes = buffer.subarray(0, length);
              const size = read(bytes, 0, length, ADDRESS);
              if (size === 0) continue;
              // One character a byte: millions of encodings are read, and a hex string each costs more
              // than the reading.
              let seenKey = '';
              for (let i = 0; i < size; i += 1) seenKey += String.fromCharCode(bytes[i]!);
              if (seen.has(seenKey)) continue;
              seen.add(seenKey);
              const hex = () => Buffer.from(bytes.subarray(0, size)).toString('hex');
              accepted += 1;
              const mine = { flow: fast.flow, target: fast.target, ref: fast.ref, refKind: fast.refKind };
              // The same bytes cut one short are never read past their end.
              if (read(bytes, 0, size - 1, ADDRESS) !== 0 && mismatches.length < 25)
                mismatches.push(`${hex()}: read past an end one byte short`);
              const theirs = capstone(bytes.slice(), bits);
              compared += 1;
              const ok =
                theirs !== null &&
                theirs.size === size &&
                mine.flow === theirs.sem.flow &&
                same(mine.target, theirs.sem.target) &&
                same(mine.ref, theirs.sem.ref) &&
                mine.refKind === theirs.sem.refKind;
              if (!ok && mismatches.length < 25)
                mismatches.push(
                  `${hex()}: fast size ${size} ${JSON.stringify(mine)} / capstone ${
                    theirs ? `${theirs.size} "${theirs.text}" ${JSON.stringify(theirs.sem)}` : 'invalid'
                  }`,
                );
              flows.set(mine.flow, (flows.get(mine.flow) ?? 0) + 1);
              refKinds.set(mine.refKind, (refKinds.get(mine.refKind) ?? 0) + 1);
            }
          }
        }
      }
    }
    console.log(`fast x86 reader, ${bits}-bit: ${accepted} distinct accepted encodings compared with Capstone`);
    expect(mismatches).toEqual([]);
    expect(compared).toBe(accepted);
    // The enumeration reaches every flow and reference kind, so a pass is not vacuous.
    for (const flow of Object.values(Flow)) expect(flows.get(flow) ?? 0).toBeGreaterThan(0);
    for (const kind of Object.values(RefKind)) expect(refKinds.get(kind) ?? 0).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(least);
  });

  it('accepts the forms compilers emit and leaves the rest to Capstone', () => {
    const read = (hex: string) => {
      const bytes = Buffer.from(hex, 'hex');
      return readX86_64(bytes, 0, bytes.length, ADDRESS);
    };
    // endbr64, call rel32, lea rdi,[rip+d32], nop word cs:[rax+rax], mov rax,fs:[0x28], fld tbyte [rsp+0x60], movsd xmm0,[rip+d]
    for (const hex of ['f30f1efa', 'e8fbefffff', '488d3d78563412', '66662e0f1f840000000000', '64488b042528000000'])
      expect([hex, read(hex)]).toEqual([hex, hex.length / 2]);
    expect(read('db6c2460')).toBe(4);
    expect(read('f20f100578563412')).toBe(8);
    // VEX, EVEX, a far call, mov from a segment register, address-size override, truncated bytes.
    for (const hex of ['c5fd74ca', '62f17c4810', 'ff1c24', '8cd8', '678b00', 'e8fbef'])
      expect([hex, read(hex)]).toEqual([hex, 0]);
  });
});

function compareTables(fastTable: InstructionTable, engineTable: InstructionTable): string[] {
  const problems: string[] = [];
  if (fastTable.count !== engineTable.count) problems.push(`count ${fastTable.count} vs ${engineTable.count}`);
  const columns = {
    address: (t: InstructionTable, i: number) => t.addressAt(i),
    size: (t: InstructionTable, i: number) => t.size[i]!,
    flow: (t: InstructionTable, i: number) => t.flowAt(i),
    target: (t: InstructionTable, i: number) => t.target(i),
    ref: (t: InstructionTable, i: number) => t.ref(i),
    refKind: (t: InstructionTable, i: number) => t.refKindAt(i),
  };
  for (let i = 0; i < Math.min(fastTable.count, engineTable.count) && problems.length < 20; i += 1) {
    for (const [c, read] of Object.entries(columns)) {
      if (!same(read(fastTable, i), read(engineTable, i)))
        problems.push(
          `#${i} at 0x${engineTable.addressAt(i).toString(16)}: ${c} ${read(fastTable, i)} vs ${read(engineTable, i)}`,
        );
    }
  }
  return problems;
}

async function bothWays(file: string, label: string): Promise<{ table: InstructionTable; opened: boolean }> {
  const layout = parseBinaryLayout(readFileSync(file));
  const architecture = layout.architecture as 'x86_64' | 'x86';
  expect(['x86_64', 'x86']).toContain(architecture);
  const signal = new AbortController().signal;
  const fastSource = decoderSource(architecture);
  const engineSource = decoderSource(architecture);
  try {
    // The discovery anchors: every defined symbol and export, and the entry point.
    const anchors = [
      ...layout.symbols.filter((sym) => sym.defined && sym.address !== 0).map((sym) => sym.address),
      ...layout.exports.map((e) => e.address),
      ...(layout.entry === null ? [] : [layout.entry]),
    ];
    const withReader = await sweep(layout, fastSource, anchors, signal, 'fast');
    const withEngine = await sweep(layout, engineSource, anchors, signal, 'engine');
    console.log(
      `${label}: ${withEngine.count} instructions, ${withReader.engineDecoded} left to Capstone by the fast reader`,
    );
    expect(compareTables(withReader, withEngine)).toEqual([]);
    expect(withEngine.engineDecoded).toBe(withEngine.count);
    // Instructions left to Capstone were decoded by the engine (it may also open only to confirm that
    // bytes are invalid, with nothing decoded).
    if (withReader.engineDecoded > 0) expect(fastSource.current).not.toBeNull();
    return { table: withReader, opened: fastSource.current !== null };
  } finally {
    fastSource.close();
    engineSource.close();
  }
}

skipUnless(toolsMissing('gcc'))('fast x86-64 reader against Capstone, program by program', () => {
  it('a gcc -O2 program is read without Capstone, with the same table', async () => {
    const file = compileFixture({
      source: join(FIXTURES, 'sample.c'),
      compiler: 'gcc',
      args: ['-O2', '-g', '-fno-inline'],
      output: 'sample-x64',
    });
    const { table, opened } = await bothWays(file, 'sample-x64');
    expect(table.engineDecoded).toBe(0);
    expect(opened).toBe(false);
  });
  it('system binaries: the same table as Capstone alone', async () => {
    const files = [
      '/usr/bin/bash',
      '/usr/bin/tmux',
      '/usr/bin/strace',
      '/usr/bin/git',
      '/usr/lib/x86_64-linux-gnu/libcrypto.so.3',
    ].filter((f) => existsSync(f));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) await bothWays(file, file);
  }, 180_000);
  it('a libc with AVX and AVX-512 code: what the reader leaves to Capstone merges into the same table', async () => {
    const libc = ['/usr/lib/x86_64-linux-gnu/libc.so.6', '/lib/x86_64-linux-gnu/libc.so.6'].find((f) => existsSync(f));
    expect(libc).toBeDefined();
    const { table } = await bothWays(libc!, libc!);
    expect(table.engineDecoded).toBeGreaterThan(0);
  }, 180_000);
});

skipUnless(toolsMissing('gcc'))('fast x86 reader against Capstone, 32-bit programs', () => {
  it('a gcc -m32 program is read without Capstone, with the same table', async () => {
    const { table, opened } = await bothWays(freestandingX86(), 'freestanding-x86');
    expect(table.engineDecoded).toBe(0);
    expect(opened).toBe(false);
  });
  it('32-bit ELF and PE programs from the Go distribution: the same table as Capstone alone', async () => {
    const testdata = '/usr/share/go-1.19/src/debug';
    const files = [
      join(testdata, 'elf/testdata/gcc-386-freebsd-exec'),
      join(testdata, 'pe/testdata/gcc-386-mingw-exec'),
    ];
    const present = files.filter((f) => existsSync(f));
    if (present.length === 0) process.stderr.write(`skipped: the Go 1.19 sources are not under ${testdata}\n`);
    for (const file of present) await bothWays(file, file);
  });
});

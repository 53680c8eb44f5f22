/*
 * A memory operand with an index, scale 1 and no base register (`lea r12, [rbp*1 + 2]`, printed
 * `[rbp + 2]`) is an ordinary compiler form: a 30 MB system library has 80 of them. Left to Capstone,
 * such an instruction loads the WebAssembly engine (about 20 MiB) for a handful of decodes. The fast
 * reader measures it itself, with Capstone's length and the semantics the text classifier derives
 * from Capstone's printed instruction (such an operand names no address). The modules are internal,
 * so they are imported from the package source.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decoderSource } from '../src/engine.js';
import type { Decoder, DecoderSource } from '../src/engine.js';
import { classifyX86 } from '../src/analysis/classify.js';
import { fast, readX86_32, readX86_64 } from '../src/analysis/fastX86.js';

const ADDRESS = 0x401000;
const sources: DecoderSource[] = [];
const decoders: Record<64 | 32, Decoder | null> = { 64: null, 32: null };
beforeAll(async () => {
  for (const bits of [64, 32] as const) {
    const source = decoderSource(bits === 64 ? 'x86_64' : 'x86');
    sources.push(source);
    decoders[bits] = await source.get();
  }
});
afterAll(() => {
  for (const source of sources) source.close();
});

/** Capstone's length, text and classified semantics of the one instruction in `hex`. */
function capstone(hex: string, bits: 64 | 32) {
  let out: { size: number; text: string; sem: object } | null = null;
  decoders[bits]!.scan(
    Buffer.from(hex, 'hex'),
    ADDRESS,
    (address, size, insn) => {
      const mnemonic = insn.mnemonic();
      const operands = insn.operands();
      const sem = classifyX86(mnemonic, operands, address, size, bits);
      out = { size, text: `${mnemonic} ${operands}`, sem: { ...sem } };
    },
    1,
  );
  return out;
}

/** The fast reader's length and semantics of the one instruction in `hex`. */
function reader(hex: string, bits: 64 | 32) {
  const bytes = Buffer.from(hex, 'hex');
  const size = (bits === 64 ? readX86_64 : readX86_32)(bytes, 0, bytes.length, ADDRESS);
  return { size, sem: { flow: fast.flow, target: fast.target, ref: fast.ref, refKind: fast.refKind } };
}

describe('issue 22: index-only operands with scale 1 are read without Capstone', () => {
  it.each([
    ['4c8d242d02000000', 64, 'lea r12, [rbp + 2]'],
    ['8b040578563412', 64, 'mov eax, dword ptr [rax + 0x12345678]'],
    ['4a8b042500100000', 64, 'mov rax, qword ptr [r12 + 0x1000]'],
    ['ff240510404000', 64, 'jmp qword ptr [rax + 0x404010]'],
    ['ff140d00104000', 64, 'call qword ptr [rcx + 0x401000]'],
    ['8d040df0ffffff', 64, 'lea eax, [rcx - 0x10]'],
    ['c7040500104000efbeadde', 64, 'mov dword ptr [rax + 0x401000], 0xdeadbeef'],
    ['8b040500104000', 32, 'mov eax, dword ptr [eax + 0x401000]'],
    ['ff248d00104000', 32, 'jmp dword ptr [ecx*4 + 0x401000]'],
  ] as const)('%s (%i-bit) reads as Capstone decodes %s', (hex, bits, text) => {
    const theirs = capstone(hex, bits);
    expect(theirs).toMatchObject({ size: hex.length / 2, text });
    const mine = reader(hex, bits);
    expect(mine.size).toBe(hex.length / 2);
    expect(mine.sem).toEqual((theirs as unknown as { sem: object }).sem);
  });

  it('still leaves a segment-prefixed index-only operand to Capstone', () => {
    expect(reader('648b042528000000', 64).size).toBeGreaterThan(0); // fs:[0x28], absolute: read
    expect(reader('648b040528000000', 64).size).toBe(0); // fs:[rax + 0x28]
  });
});

// The x86 reader is run over a small corpus of common instructions before a sweep (warmX86), so that V8
// has type feedback for its common forms before the sweep. The corpus must be what it says: instructions Capstone
// decodes one after another with the sizes the reader measures, every one accepted by the reader but
// the VEX form it leaves to Capstone. Warming changes no later reading.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decoderSource } from '../src/engine.js';
import type { Decoder, DecoderSource } from '../src/engine.js';
import { WARM_CODE, fast, readX86_64, warmX86 } from '../src/analysis/fastX86.js';

let source: DecoderSource;
let decoder: Decoder;
beforeAll(async () => {
  source = decoderSource('x86_64');
  decoder = await source.get();
});
afterAll(() => source.close());

describe('issue 22: the x86 reader warmed before a sweep', () => {
  it('should warm it with instructions Capstone decodes in sequence, all read by the reader but VEX', () => {
    const capstone: Array<{ at: number; size: number; text: string }> = [];
    decoder.scan(WARM_CODE, 0x40_1000, (address, size, insn) => {
      capstone.push({ at: address - 0x40_1000, size, text: `${insn.mnemonic()} ${insn.operands()}` });
    });
    // The whole corpus decodes, without a byte skipped.
    expect(capstone.reduce((sum, insn) => sum + insn.size, 0)).toBe(WARM_CODE.length);
    expect(capstone.length).toBeGreaterThan(50);
    const declined = capstone.filter(({ at, size }) => {
      const measured = readX86_64(WARM_CODE, at, WARM_CODE.length, 0x40_1000 + at);
      if (measured !== 0) expect({ at, measured }).toEqual({ at, measured: size });
      return measured === 0;
    });
    expect(declined.map((insn) => insn.text)).toEqual(['vzeroupper ']);
  });

  it('should warm it with a load from an absolute negative address, read as Capstone prints it', () => {
    // mov rax, qword ptr [0xfffffffffffffff0]: the corpus holds it, so the reader meets the sign-extended
    // reference before a sweep does.
    const code = Buffer.from('488b0425f0ffffff', 'hex');
    expect(WARM_CODE.includes(code)).toBe(true);
    const printed: string[] = [];
    decoder.scan(code, 0x1000, (_address, _size, insn) => printed.push(insn.operands()));
    const address = /\[0x([0-9a-f]+)\]/.exec(printed[0] ?? '')?.[1];
    expect(address).toBe('fffffffffffffff0');
    expect(readX86_64(code, 0, code.length, 0x1000)).toBe(code.length);
    expect(fast.ref).toBe(Number.parseInt(address!, 16));
  });

  it('should leave every later reading as it was', () => {
    // call rel32, then jmp [rip + 0x10]
    const code = Buffer.from('e810000000ff2510000000', 'hex');
    const read = () => [
      readX86_64(code, 0, code.length, 0x1000),
      fast.flow,
      fast.target,
      readX86_64(code, 5, code.length, 0x1005),
      fast.flow,
      fast.ref,
    ];
    const before = read();
    warmX86();
    warmX86();
    expect(read()).toEqual(before);
    expect(before).toEqual([5, expect.any(Number), 0x1015, 6, expect.any(Number), 0x1005 + 6 + 0x10]);
  });
});

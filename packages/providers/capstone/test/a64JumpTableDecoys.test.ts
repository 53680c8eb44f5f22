import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { FIXTURES, openWithCapstone } from './support.js';

const source = join(FIXTURES, 'decoys-a64.s');
const FLAGS = ['-nostdlib', '-static'];

/**
 * The decoy instruction words, assembled by hand from the ARM ARM encodings (A64 "Load/store register
 * (register offset)": size:2 111 V 00 opc:2 1 Rm option:3 S 10 Rn Rt; "SUBS (immediate)" with Rd=31).
 */
const DECOYS = {
  // size=00 V=1 opc=01: LDR (SIMD&FP, register) b1, [x9, w0, uxtw].
  simd:
    (0b00 << 30) |
    (0b111 << 27) |
    (1 << 26) |
    (0b01 << 22) |
    (1 << 21) |
    (0 << 16) |
    (0b010 << 13) |
    (0b10 << 10) |
    (9 << 5) |
    1,
  // size=11 V=0 opc=10: PRFM (register) pldl1strm (Rt=1), [x9, w0, uxtw #3].
  prfm:
    (0b11 << 30) |
    (0b111 << 27) |
    (0b10 << 22) |
    (1 << 21) |
    (0 << 16) |
    (0b010 << 13) |
    (1 << 12) |
    (0b10 << 10) |
    (9 << 5) |
    1,
  // sf=0 SUBS immediate, imm12=1, Rn=5, Rd=31: cmp w5, #1.
  cmp: (0b011100010 << 23) | (1 << 10) | (5 << 5) | 31,
};

/** Case and default label addresses from a build that keeps local labels. */
function labels(): Map<string, number> {
  const labelled = compileFixture({
    compiler: 'aarch64-linux-gnu-gcc',
    source,
    args: [...FLAGS, '-Wa,-L', '-Wl,--discard-none'],
    output: 'decoys-a64-labels',
  });
  const out = new Map<string, number>();
  for (const line of execFileSync('aarch64-linux-gnu-nm', [labelled], { encoding: 'utf8' }).split('\n')) {
    const [value, , name] = line.trim().split(/\s+/);
    if (value && name) out.set(name, Number.parseInt(value, 16));
  }
  return out;
}

/** objdump's listing: instruction word by address. */
function objdumpWords(file: string): Map<number, number> {
  const out = execFileSync('aarch64-linux-gnu-objdump', ['-d', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return new Map(
    [...out.matchAll(/^\s+([0-9a-f]+):\s+([0-9a-f]{8})\s/gm)].map((m) => [
      Number.parseInt(m[1]!, 16),
      Number.parseInt(m[2]!, 16),
    ]),
  );
}

skipUnless(toolsMissing('aarch64-linux-gnu-gcc', 'aarch64-linux-gnu-nm', 'aarch64-linux-gnu-objdump'))(
  'AArch64 jump tables beside look-alike instructions (cross gcc, hand-written assembly)',
  () => {
    let opened: Awaited<ReturnType<typeof openWithCapstone>>;
    let program: string;
    beforeAll(async () => {
      program = compileFixture({ compiler: 'aarch64-linux-gnu-gcc', source, args: FLAGS, output: 'decoys-a64' });
      opened = await openWithCapstone(program);
    });
    afterAll(async () => {
      await opened?.session.close(new AbortController().signal);
    });

    it('assembles the decoys to the words the encoding tables give', () => {
      const words = new Set(objdumpWords(program).values());
      // The same words as llvm-mc -show-encoding gives for the mnemonics in the fixture.
      expect([DECOYS.simd >>> 0, DECOYS.prfm >>> 0, DECOYS.cmp >>> 0]).toEqual([0x3c604921, 0xf8a05921, 0x710004bf]);
      for (const w of Object.values(DECOYS)) expect(words.has(w >>> 0)).toBe(true);
    });

    it.each([
      ['simd_decoy', 'a SIMD/FP load into b1 is not the index load'],
      ['prfm_decoy', 'a prefetch is not the index load'],
      ['cmp_decoy', 'a comparison of another register is not the bound; one of a moved-from index is'],
    ])('%s: %s', async (name) => {
      const signal = new AbortController().signal;
      const addresses = labels();
      const cases = [0, 1, 2, 3].map((n) => addresses.get(`.L${name}_c${n}`)!);
      const fallback = addresses.get(`.L${name}_default`)!;
      expect(cases.every((c) => Number.isInteger(c)) && Number.isInteger(fallback)).toBe(true);
      const address = await opened.port.addressOf(name, signal);
      expect(address).not.toBeNull();
      const flow = await opened.port.controlFlow(address!, signal);
      const targets = flow.edges.filter((e) => e.kind === 'table').map((e) => Number.parseInt(e.to.slice(2), 16));
      // Exactly the four cases: the default (what the data after each table and the decoy tables
      // point at) is reached only through the bounds check's conditional branch, never the table.
      expect(targets.sort((a, b) => a - b)).toEqual(cases);
      expect(flow.unresolved.filter((u) => u.kind === 'indirect-jump')).toEqual([]);
    });
  },
);

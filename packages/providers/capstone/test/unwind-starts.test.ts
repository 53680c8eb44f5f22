// A procedure taken from an unwind table must start on an instruction. glibc's signal return trampoline
// `__restore_rt` has an FDE that starts one byte before the symbol on purpose, on the last byte of the
// NOP that pads the code before it: that start made a one-byte procedure (with symbols) or a procedure
// whose decoding swallowed the trampoline's first instruction (stripped). glibc's hand-written
// `_dl_tlsdesc_undefweak` has an FDE that opens where the one before closes, on the alignment padding
// before the code: that made a procedure of padding. The truth is the static binary itself: its FDEs
// from readelf, nm on the unstripped build, objdump's decoding.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { FIXTURES, allProcedures, openWithCapstone, removeTempDirs } from './support.js';

afterAll(removeTempDirs);

const hex = (n: number): string => `0x${n.toString(16)}`;

/** objdump's instructions: address → text. */
function objdumpInstructions(file: string): Map<number, string> {
  const text = execFileSync('objdump', ['-d', '-w', '--no-show-raw-insn', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const out = new Map<number, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([0-9a-f]+):\s+(\S.*)$/.exec(line);
    if (m) out.set(Number.parseInt(m[1]!, 16), m[2]!.trim());
  }
  return out;
}

const PADDING = /^(?:(?:data16|cs)\s+)*(?:nop[wl]?\b|xchg\s+%ax,%ax$|int3$)/;

skipUnless(toolsMissing('gcc', 'nm', 'objdump', 'readelf', 'strip'))('unwind starts of a static glibc program', () => {
  let file: string;
  let stripped: string;
  let restoreRt: number;
  let instructions: Map<number, string>;
  beforeAll(() => {
    file = compileFixture({
      source: join(FIXTURES, 'sample.c'),
      compiler: 'gcc',
      args: ['-O2', '-fno-inline', '-static'],
      output: 'sample-static',
    });
    stripped = compileFixture({ source: file, compiler: 'strip', args: ['-s'], output: 'sample-static-stripped' });
    const nm = execFileSync('nm', [file], { encoding: 'utf8' });
    restoreRt = Number.parseInt(/^([0-9a-f]+) t __restore_rt$/m.exec(nm)![1]!, 16);
    instructions = objdumpInstructions(file);
  });

  it('should hold an FDE that starts one byte before __restore_rt, inside an instruction', () => {
    const frames = execFileSync('readelf', ['--debug-dump=frames', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const starts = [...frames.matchAll(/ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\./g)].map((m) =>
      Number.parseInt(m[1]!, 16),
    );
    expect(starts).toContain(restoreRt - 1);
    expect(instructions.has(restoreRt - 1)).toBe(false);
    expect(instructions.get(restoreRt)).toMatch(/^mov\s+\$0xf,%rax$/);
  });

  for (const build of ['unstripped', 'stripped'] as const) {
    describe(build, () => {
      let opened: Awaited<ReturnType<typeof openWithCapstone>>;
      beforeAll(async () => {
        opened = await openWithCapstone(build === 'stripped' ? stripped : file);
      });
      afterAll(async () => opened?.session.close(new AbortController().signal));

      it('should start every procedure on an instruction objdump decodes, none on padding', async () => {
        const wrong = (await allProcedures(opened.port))
          .map((p) => ({ p, at: instructions.get(Number.parseInt(p.address.slice(2), 16)) }))
          .filter(({ at }) => at === undefined || PADDING.test(at))
          .map(({ p, at }) => `${p.name}@${p.address}+${p.size}: ${at ?? 'inside an instruction'}`);
        expect(wrong).toEqual([]);
      });

      it('should decode __restore_rt from its symbol, as objdump does', async () => {
        const signal = new AbortController().signal;
        const procedure = await opened.port.containingProcedure(hex(restoreRt), signal);
        expect(procedure?.address).toBe(hex(restoreRt));
        const rows = (await opened.port.instructions(hex(restoreRt), { offset: 0, limit: 4 }, signal)).items;
        const truth = [...instructions.keys()].filter((a) => a >= restoreRt).slice(0, 2);
        expect(rows.slice(0, 2).map((r) => r.address)).toEqual(truth.map(hex));
        expect(rows.map((r) => r.mnemonic)).toEqual(expect.arrayContaining(['mov', 'syscall']));
      });
    });
  }
});

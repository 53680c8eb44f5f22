// xrefs lists the words of data that hold an address, beside the code that refers to it: a table of
// functions (`int (*ops[2])(int) = {add1, mul2}`), an array of string pointers, `.init_array`. Before, only
// references made by instructions were found, so `add1`, called only through `ops`, had none. The truth
// is the binary itself: nm gives where `ops` and `names` lie, and the words there are read back.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { FIXTURES, openWithCapstone } from './support.js';

/** Symbol → address from `nm`. */
function symbols(file: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of execFileSync('nm', [file], { encoding: 'utf8' }).split('\n')) {
    const [address, , name] = line.trim().split(/\s+/);
    if (address && name && /^[0-9a-f]+$/.test(address)) out.set(name, Number.parseInt(address, 16));
  }
  return out;
}

const hex = (n: number): string => `0x${n.toString(16)}`;

skipUnless(toolsMissing('gcc', 'nm'))('xrefs finds pointers held in data', () => {
  for (const [label, args] of [
    ['position-dependent', ['-O2', '-no-pie', '-fno-pie']],
    ['position-independent', ['-O2', '-fPIE', '-pie']],
  ] as const) {
    describe(label, () => {
      let file: string;
      let opened: Awaited<ReturnType<typeof openWithCapstone>>;
      beforeAll(async () => {
        file = compileFixture({
          source: join(FIXTURES, 'pointers.c'),
          compiler: 'gcc',
          args: [...args],
          output: `pointers-${label}`,
        });
        opened = await openWithCapstone(file);
      });
      afterAll(async () => opened?.session.close(new AbortController().signal));

      it('should list the slots of the function table that hold each function', async () => {
        const nm = symbols(file);
        const signal = new AbortController().signal;
        const ops = nm.get('ops')!;
        for (const [name, slot] of [
          ['add1', ops],
          ['mul2', ops + 8],
        ] as const) {
          const refs = await opened.port.references(hex(nm.get(name)!), signal);
          expect(refs.to).toContainEqual({
            from: hex(slot),
            to: hex(nm.get(name)!),
            kind: 'data',
            from_procedure: null,
          });
        }
      });

      it('should list the array slot that holds a string, and the constructor table entry', async () => {
        const nm = symbols(file);
        const signal = new AbortController().signal;
        const alpha = await opened.port.strings({ offset: 0, limit: 5, query: 'alpha' }, signal);
        expect(alpha.items).toHaveLength(1);
        const refs = await opened.port.references(alpha.items[0]!.address, signal);
        expect(refs.to.filter((r) => r.kind === 'data' && r.from_procedure === null).map((r) => r.from)).toEqual([
          hex(nm.get('names')!),
        ]);
        // frame_dummy is called by nothing but the loader, through .init_array.
        const dummy = await opened.port.references(hex(nm.get('frame_dummy')!), signal);
        expect(dummy.to.some((r) => r.kind === 'data')).toBe(true);
      });
    });
  }
});

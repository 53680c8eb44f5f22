// A linker lays the PE import thunks (`jmp [rip + __imp_x]`, 8 bytes each with padding) out back to back.
// In a stripped image only the thunks something calls had a start of their own: the first one after
// them ran on over every uncalled thunk of the run, so those imports had no procedure. The truth is the
// stripped image itself: its import table from llvm-readobj and the thunks objdump decodes.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import {
  FIXTURES,
  allProcedures,
  coffImportSlots,
  objdumpCalls,
  objdumpRipTransfers,
  openWithCapstone,
  removeTempDirs,
} from './support.js';

afterAll(removeTempDirs);

const hex = (n: number): string => `0x${n.toString(16)}`;

skipUnless(toolsMissing('x86_64-w64-mingw32-gcc', 'x86_64-w64-mingw32-objdump', 'llvm-readobj'))(
  'import thunks of a stripped x86-64 PE (mingw-w64)',
  () => {
    let file: string;
    let opened: Awaited<ReturnType<typeof openWithCapstone>>;
    beforeAll(async () => {
      file = compileFixture({
        source: join(FIXTURES, 'sample.c'),
        compiler: 'x86_64-w64-mingw32-gcc',
        args: ['-O2', '-fno-inline', '-s'],
        output: 'sample-linked-stripped.exe',
      });
      opened = await openWithCapstone(file);
    });
    afterAll(async () => opened?.session.close(new AbortController().signal));

    it('should make each thunk a procedure of its own, named by its import, with its library', async () => {
      const signal = new AbortController().signal;
      const slots = coffImportSlots(file);
      const thunks = new Map(
        [...objdumpRipTransfers('x86_64-w64-mingw32-objdump', file, 'jmp')]
          .filter(([, slot]) => slots.has(slot))
          .map(([site, slot]) => [site, slots.get(slot)!]),
      );
      // The run must hold thunks that nothing calls directly, or it would not exercise the defect.
      const called = new Set([...objdumpCalls('x86_64-w64-mingw32-objdump', file)].map((c) => c.split('>')[1]));
      const uncalled = [...thunks.keys()].filter((site) => !called.has(hex(site)));
      expect(uncalled.length).toBeGreaterThan(5);
      expect(thunks.size).toBeGreaterThan(20);

      const procedures = await allProcedures(opened.port);
      const byAddress = new Map(procedures.map((p) => [p.address, p]));
      expect([...thunks.keys()].map((site) => ({ site: hex(site), name: byAddress.get(hex(site))?.name }))).toEqual(
        [...thunks].map(([site, imp]) => ({ site: hex(site), name: imp.name })),
      );
      const info = [];
      for (const site of uncalled) info.push({ site: hex(site), ...(await opened.port.procedure(hex(site), signal)) });
      expect(info).toEqual(
        uncalled.map((site) =>
          expect.objectContaining({ site: hex(site), kind: 'thunk', library: thunks.get(site)!.library }),
        ),
      );
      // No procedure spans two thunks.
      const sites = [...thunks.keys()].sort((a, b) => a - b);
      const spanning = procedures.filter((p) => {
        const start = Number.parseInt(p.address.slice(2), 16);
        return sites.filter((s) => s >= start && s < start + p.size).length > 1;
      });
      expect(spanning.map((p) => `${p.name}@${p.address}+${p.size}`)).toEqual([]);
    });
  },
);

import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import {
  FIXTURES,
  allProcedures,
  freestandingX86,
  nmFunctions,
  nmImportSlots,
  objdumpCalls,
  objdumpSlotTransfers,
  openWithCapstone,
  portCalls,
  removeTempDirs,
  systemBinaries,
  writeManyFunctions,
} from './support.js';

afterAll(removeTempDirs);

const sample = join(FIXTURES, 'sample.c');

type Opened = Awaited<ReturnType<typeof openWithCapstone>>;

/** Checks every symbol-table function of `file` is a procedure at the same address. */
async function expectAllSymbolsFound(opened: Opened, truth: Map<number, string[]>) {
  const found = new Set((await allProcedures(opened.port)).map((p) => Number.parseInt(p.address.slice(2), 16)));
  const missing = [...truth.entries()]
    .filter(([a]) => !found.has(a))
    .map(([a, n]) => `${n.join('/')}@0x${a.toString(16)}`);
  expect(missing).toEqual([]);
  expect(truth.size).toBeGreaterThan(5);
}

skipUnless(toolsMissing('gcc', 'objdump', 'nm', 'strip'))('x86-64 ELF (gcc)', () => {
  let debug: string;
  let stripped: string;
  let opened: Opened;
  beforeAll(async () => {
    debug = compileFixture({
      source: sample,
      compiler: 'gcc',
      args: ['-O2', '-g', '-fno-inline'],
      output: 'sample-x64',
    });
    stripped = compileFixture({ source: debug, compiler: 'strip', args: ['-s'], output: 'sample-x64-stripped' });
    opened = await openWithCapstone(debug);
  });
  afterAll(async () => opened?.session.close(new AbortController().signal));

  it('finds every nm function at its address', async () => {
    await expectAllSymbolsFound(opened, nmFunctions('nm', debug));
  });

  it('reports direct call edges identical to objdump', async () => {
    const truth = objdumpCalls('objdump', debug);
    expect(truth.size).toBeGreaterThan(8);
    expect([...(await portCalls(opened.port))].sort()).toEqual([...truth].sort());
  });

  it('names PLT stubs by their import and records the call through a pointer as an explicit unknown', async () => {
    const signal = new AbortController().signal;
    const main = (await opened.port.addressOf('main', signal))!;
    const callees = await opened.port.callees(main, signal);
    const names = callees.calls.map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining(['sort_values', 'classify', 'apply', 'helper_chain', 'printf', 'getenv']),
    );
    const apply = await opened.port.callees((await opened.port.addressOf('apply', signal))!, signal);
    // apply() calls through a pointer: an explicit unknown, not an empty list presented as complete.
    expect(apply.unresolved.length + apply.calls.length).toBeGreaterThan(0);
    expect(apply.unresolved.every((u) => u.kind === 'indirect-call' || u.kind === 'indirect-jump')).toBe(true);
  });

  it('resolves the switch jump table: every non-padding block of classify is reachable from its entry', async () => {
    const signal = new AbortController().signal;
    const classify = (await opened.port.addressOf('classify', signal))!;
    const flow = await opened.port.controlFlow(classify, signal);
    const rows = (await opened.port.instructions(classify, { offset: 0, limit: 1000 }, signal)).items;
    const padding = (start: string, end: string) =>
      rows
        .filter(
          (r) =>
            Number.parseInt(r.address, 16) >= Number.parseInt(start, 16) &&
            Number.parseInt(r.address, 16) < Number.parseInt(end, 16),
        )
        .every((r) => /(^|\s)nop$/.test(r.mnemonic) || r.mnemonic === 'int3');
    const reached = new Set([classify]);
    for (let grew = true; grew;) {
      grew = false;
      for (const e of flow.edges) {
        if (reached.has(e.from) && !reached.has(e.to)) {
          reached.add(e.to);
          grew = true;
        }
      }
    }
    const orphans = flow.blocks.filter((b) => !reached.has(b.start) && !padding(b.start, b.end)).map((b) => b.start);
    expect(orphans).toEqual([]);
    expect(flow.edges.filter((e) => e.kind === 'table').length).toBeGreaterThanOrEqual(7);
    expect(flow.unresolved).toEqual([]);
  });

  it('recovers at least 90% of the functions of the stripped build and reports precision', async () => {
    const truth = nmFunctions('nm', debug);
    const s = await openWithCapstone(stripped);
    try {
      const procs = (await allProcedures(s.port)).filter((p) => p.kind !== 'import');
      const found = new Set(procs.map((p) => Number.parseInt(p.address.slice(2), 16)));
      const hits = [...truth.keys()].filter((a) => found.has(a)).length;
      const recall = hits / truth.size;
      const precision = procs.filter((p) => truth.has(Number.parseInt(p.address.slice(2), 16))).length / procs.length;
      console.info(
        `stripped x86-64 ELF: recall ${(recall * 100).toFixed(1)}% (${hits}/${truth.size}), precision ${(precision * 100).toFixed(1)}% (${procs.length} procedures)`,
      );
      expect(recall).toBeGreaterThanOrEqual(0.9);
      expect([...(await portCalls(s.port))].sort()).toEqual([...objdumpCalls('objdump', stripped)].sort());
    } finally {
      await s.session.close(new AbortController().signal);
    }
  });
});

const freestanding = join(FIXTURES, 'freestanding.c');

/**
 * nm's text symbols less the labels of mingw-w64's constructor and destructor lists: GNU ld lays those
 * lists of pointers out in .text, but they are data (pe-pointer-lists.test.ts checks them).
 */
function peFunctions(nm: string, file: string, objdump: string): Map<number, string[]> {
  const out = nmFunctions(nm, file, false, objdump);
  for (const [address, names] of out) if (names.every((n) => /^_*[CD]TOR_LIST__$/.test(n))) out.delete(address);
  return out;
}

/** Opens `file`, checks symbols and calls against the given toolchain, and that main references the string. */
async function checkFreestanding(file: string, nm: string, objdump: string, main = 'main') {
  const opened = await openWithCapstone(file);
  try {
    await expectAllSymbolsFound(opened, nmFunctions(nm, file, false, objdump));
    expect([...(await portCalls(opened.port))].sort()).toEqual([...objdumpCalls(objdump, file)].sort());
    const signal = new AbortController().signal;
    const hits = await opened.port.strings({ offset: 0, limit: 10, query: 'password check' }, signal);
    expect(hits.items).toHaveLength(1);
    const refs = await opened.port.references(hits.items[0]!.address, signal);
    expect(refs.to.map((r) => r.from_procedure)).toContain(await opened.port.addressOf(main, signal));
    return opened;
  } finally {
    await opened.session.close(new AbortController().signal);
  }
}

skipUnless(toolsMissing('gcc', 'nm', 'strip'))('stripped discovery without unwind tables', () => {
  it('recovers at least 90% of 1,200 chained functions from call targets alone and reports precision', async () => {
    const debug = compileFixture({
      source: writeManyFunctions(1200),
      compiler: 'gcc',
      args: ['-O1', '-fno-inline', '-fno-asynchronous-unwind-tables', '-fno-unwind-tables'],
      output: 'many-nounwind',
    });
    const stripped = compileFixture({
      source: debug,
      compiler: 'strip',
      args: ['-s'],
      output: 'many-nounwind-stripped',
    });
    const truth = nmFunctions('nm', debug);
    const opened = await openWithCapstone(stripped);
    try {
      const procs = (await allProcedures(opened.port)).filter((p) => p.kind !== 'import');
      const found = new Set(procs.map((p) => Number.parseInt(p.address.slice(2), 16)));
      const hits = [...truth.keys()].filter((a) => found.has(a)).length;
      const recall = hits / truth.size;
      const precision = procs.filter((p) => truth.has(Number.parseInt(p.address.slice(2), 16))).length / procs.length;
      console.info(
        `stripped x86-64 ELF without unwind tables: recall ${(recall * 100).toFixed(1)}% (${hits}/${truth.size}), precision ${(precision * 100).toFixed(1)}% (${procs.length} procedures)`,
      );
      expect(truth.size).toBeGreaterThan(1200);
      expect(recall).toBeGreaterThanOrEqual(0.9);
    } finally {
      await opened.session.close(new AbortController().signal);
    }
  });
});

skipUnless(toolsMissing('aarch64-linux-gnu-gcc', 'aarch64-linux-gnu-objdump', 'aarch64-linux-gnu-nm'))(
  'AArch64 ELF (cross gcc)',
  () => {
    it('finds every function, matches objdump direct calls, resolves ADRP+ADD string references', async () => {
      const file = compileFixture({
        source: freestanding,
        compiler: 'aarch64-linux-gnu-gcc',
        args: ['-O2', '-fno-inline', '-nostdlib', '-static', '-ffreestanding', '-fno-builtin'],
        output: 'freestanding-a64',
      });
      await checkFreestanding(file, 'aarch64-linux-gnu-nm', 'aarch64-linux-gnu-objdump');
    });
  },
);

skipUnless(toolsMissing('gcc', 'objdump', 'nm'))('x86 (32-bit) ELF (gcc -m32)', () => {
  it('finds every function, matches objdump direct calls, resolves absolute string references', async () => {
    const file = freestandingX86();
    await checkFreestanding(file, 'nm', 'objdump');
  });
});

skipUnless(toolsMissing('clang', 'ld64.lld-14', 'llvm-nm', 'llvm-objdump'))('thin Mach-O (clang + ld64.lld)', () => {
  for (const [arch, target] of [
    ['x86_64', 'x86_64-apple-macos11'],
    ['arm64', 'arm64-apple-macos11'],
  ] as const) {
    it(`${arch}: every function, direct calls identical to llvm-objdump, stub named by its import`, async () => {
      const object = compileFixture({
        source: freestanding,
        compiler: 'clang',
        args: ['-target', target, '-O1', '-fno-inline', '-DWITH_IMPORTS', '-c'],
        output: `freestanding-${arch}.o`,
      });
      const file = compileFixture({
        source: object,
        compiler: 'ld64.lld-14',
        args: [
          '-arch',
          arch,
          '-platform_version',
          'macos',
          '11.0',
          '11.0',
          '-undefined',
          'dynamic_lookup',
          '-e',
          '__start',
        ],
        output: `freestanding-${arch}-macho`,
      });
      await checkFreestanding(file, 'llvm-nm', 'llvm-objdump', '_main');
      const opened = await openWithCapstone(file);
      try {
        const signal = new AbortController().signal;
        const callees = await opened.port.callees((await opened.port.addressOf('_main', signal))!, signal);
        expect(callees.calls.map((c) => c.name)).toContain('_puts');
      } finally {
        await opened.session.close(signal0());
      }
    });
  }
});

function signal0(): AbortSignal {
  return new AbortController().signal;
}

skipUnless(toolsMissing('x86_64-w64-mingw32-gcc', 'x86_64-w64-mingw32-objdump', 'x86_64-w64-mingw32-nm'))(
  'x86-64 PE (mingw-w64)',
  () => {
    it('finds every function and matches objdump direct calls', async () => {
      const file = compileFixture({
        source: sample,
        compiler: 'x86_64-w64-mingw32-gcc',
        args: ['-O2', '-fno-inline'],
        output: 'sample.exe',
      });
      const opened = await openWithCapstone(file);
      try {
        await expectAllSymbolsFound(opened, peFunctions('x86_64-w64-mingw32-nm', file, 'x86_64-w64-mingw32-objdump'));
        expect([...(await portCalls(opened.port))].sort()).toEqual(
          [...objdumpCalls('x86_64-w64-mingw32-objdump', file)].sort(),
        );
        const signal = new AbortController().signal;
        const thunk = await opened.port.procedure((await opened.port.addressOf('GetLastError', signal))!, signal);
        expect(thunk).toMatchObject({ kind: 'thunk', library: 'KERNEL32.dll' });
        const called = [];
        for (const p of await allProcedures(opened.port)) {
          const info = await opened.port.procedure(p.address, signal);
          if (info?.kind === 'thunk' && info.caller_count > 0) called.push(info);
        }
        expect(called.length).toBeGreaterThan(3);
        const stripped = await openWithCapstone(
          compileFixture({
            source: file,
            compiler: 'x86_64-w64-mingw32-strip',
            args: ['-s'],
            output: 'sample-stripped.exe',
          }),
        );
        try {
          // Without the COFF symbol table, each called thunk is still named by the import it jumps through.
          for (const t of called)
            expect({ name: t.name, address: await stripped.port.addressOf(t.name, signal) }).toEqual({
              name: t.name,
              address: t.address,
            });
        } finally {
          await stripped.session.close(signal);
        }
      } finally {
        await opened.session.close(new AbortController().signal);
      }
    });
  },
);

skipUnless(
  toolsMissing('i686-w64-mingw32-gcc', 'i686-w64-mingw32-objdump', 'i686-w64-mingw32-nm', 'i686-w64-mingw32-strip'),
)('x86 (32-bit) PE (mingw-w64 i686)', () => {
  it('finds every function, matches objdump direct calls, names calls and thunks through the IAT', async () => {
    const file = compileFixture({
      source: sample,
      compiler: 'i686-w64-mingw32-gcc',
      args: ['-O2', '-fno-inline'],
      output: 'sample32.exe',
    });
    const opened = await openWithCapstone(file);
    try {
      await expectAllSymbolsFound(opened, peFunctions('i686-w64-mingw32-nm', file, 'i686-w64-mingw32-objdump'));
      expect([...(await portCalls(opened.port))].sort()).toEqual(
        [...objdumpCalls('i686-w64-mingw32-objdump', file)].sort(),
      );
      const signal = new AbortController().signal;
      // Every `call dword ptr [__imp_x]` is an import call named x (slots from nm's __imp_ symbols).
      const slots = nmImportSlots('i686-w64-mingw32-nm', file);
      const truth = objdumpSlotTransfers('i686-w64-mingw32-objdump', file, slots, 'call');
      expect(truth.size).toBeGreaterThan(5);
      const importCalls = new Map<number, string>();
      for (const p of await allProcedures(opened.port))
        for (const c of (await opened.port.callees(p.address, signal)).calls)
          if (c.kind === 'import-call' && c.site !== p.address) importCalls.set(Number.parseInt(c.site, 16), c.name!);
      expect([...importCalls].sort()).toEqual([...truth].sort());
      // The switch of classify dispatches through an absolute jump table: its cases stay inside it,
      // and its tail calls reach puts through the `jmp [__imp_puts]` thunk.
      const classify = (await opened.port.addressOf('_classify', signal))!;
      const flow = await opened.port.controlFlow(classify, signal);
      expect(flow.edges.filter((e) => e.kind === 'table').length).toBeGreaterThanOrEqual(7);
      expect(flow.unresolved).toEqual([]);
      const puts = (await opened.port.addressOf('_puts', signal))!;
      expect(await opened.port.procedure(puts, signal)).toMatchObject({ kind: 'thunk', library: 'msvcrt.dll' });
      expect((await opened.port.callees(classify, signal)).calls).toEqual(
        expect.arrayContaining([expect.objectContaining({ procedure: puts, kind: 'tail-call' })]),
      );
      const main = (await opened.port.addressOf('_main', signal))!;
      expect((await opened.port.callees(main, signal)).calls.map((c) => c.name)).toEqual(
        expect.arrayContaining(['_sort_values', '_classify', '_apply', '_helper_chain', '_printf', '_getenv']),
      );
      const thunks = objdumpSlotTransfers('i686-w64-mingw32-objdump', file, slots, 'jmp');
      expect(thunks.size).toBeGreaterThan(10);
      const stripped = await openWithCapstone(
        compileFixture({
          source: file,
          compiler: 'i686-w64-mingw32-strip',
          args: ['-s'],
          output: 'sample32-stripped.exe',
        }),
      );
      try {
        // Without the COFF symbol table, each called `jmp [__imp_x]` thunk is still named x.
        let called = 0;
        for (const [site, name] of thunks) {
          const info = await stripped.port.procedure(`0x${site.toString(16)}`, signal);
          if (!info || info.caller_count === 0) continue;
          called += 1;
          expect({ site, name: info.name, kind: info.kind }).toEqual({ site, name, kind: 'thunk' });
        }
        expect(called).toBeGreaterThan(3);
        expect(await stripped.port.addressOf('puts', signal)).toBe(puts);
      } finally {
        await stripped.session.close(signal);
      }
    } finally {
      await opened.session.close(new AbortController().signal);
    }
  });
});

// The smallest and the next system binary present (ls is always there).
const realBinaries = systemBinaries().slice(0, 2);
skipUnless(toolsMissing('nm', 'objdump'))('real binaries from /usr/bin', () => {
  for (const file of realBinaries) {
    it(`${file}: every exported function at its address, direct calls identical to objdump`, async () => {
      const opened = await openWithCapstone(file);
      try {
        const truth = new Map([...nmFunctions('nm', file, true), ...nmFunctions('nm', file)]);
        const found = new Set((await allProcedures(opened.port)).map((p) => Number.parseInt(p.address.slice(2), 16)));
        const missing = [...truth.entries()]
          .filter(([a]) => !found.has(a))
          .map(([a, n]) => `${n.join('/')}@0x${a.toString(16)}`);
        expect(missing).toEqual([]);
        expect([...(await portCalls(opened.port))].sort()).toEqual([...objdumpCalls('objdump', file)].sort());
      } finally {
        await opened.session.close(new AbortController().signal);
      }
    });
  }
});

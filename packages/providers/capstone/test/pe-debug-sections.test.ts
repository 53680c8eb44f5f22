// A PE keeps its DWARF sections mapped like data, and the addresses there describe the code: where a
// function starts, and where its range ends, which is often the padding byte after it. Read as the
// program's pointers, such an end became a one-byte procedure on that padding (`sub_1400017bf`, the
// `nop` after mingw-w64's `__main`), and xrefs listed debugging records as data holding an address.
// The truth is objdump: its section table and its decoding of the padding.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { FIXTURES, allProcedures, openWithCapstone, removeTempDirs } from './support.js';

afterAll(removeTempDirs);

const OBJDUMP = 'x86_64-w64-mingw32-objdump';

/** Sections from `objdump -h`: name, `[start, end)`. */
function sections(file: string): Array<{ name: string; start: number; end: number }> {
  const out = [];
  for (const line of execFileSync(OBJDUMP, ['-h', file], { encoding: 'utf8' }).split('\n')) {
    const m = /^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s/.exec(line);
    if (m) {
      const start = Number.parseInt(m[3]!, 16);
      out.push({ name: m[1]!, start, end: start + Number.parseInt(m[2]!, 16) });
    }
  }
  return out;
}

skipUnless(toolsMissing('x86_64-w64-mingw32-gcc', OBJDUMP))('DWARF sections of an x86-64 PE (mingw-w64)', () => {
  let file: string;
  let opened: Awaited<ReturnType<typeof openWithCapstone>>;
  beforeAll(async () => {
    file = compileFixture({
      source: join(FIXTURES, 'sample.c'),
      compiler: 'x86_64-w64-mingw32-gcc',
      // mingw-w64's startup objects bring their DWARF sections, which the linker keeps.
      args: ['-O2', '-fno-inline'],
      output: 'sample.exe',
    });
    opened = await openWithCapstone(file);
  });
  afterAll(async () => opened?.session.close(new AbortController().signal));

  it('should start no procedure on the padding after a function', async () => {
    expect(sections(file).map((s) => s.name)).toEqual(expect.arrayContaining(['.debug_info', '.debug_line']));
    const padding = new Set<string>();
    const text = execFileSync(OBJDUMP, ['-d', '--no-show-raw-insn', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
    for (const line of text.split('\n')) {
      const m = /^\s*([0-9a-f]+):\s+(.*)$/.exec(line);
      if (m && /^(?:(?:data16|cs|rex\.W)\s+)*(?:nop[wl]?|xchg\s+%ax,%ax|int3)\b/.test(m[2]!))
        padding.add(`0x${Number.parseInt(m[1]!, 16).toString(16)}`);
    }
    expect(padding.size).toBeGreaterThan(50);
    const onPadding = (await allProcedures(opened.port)).filter((p) => padding.has(p.address));
    expect(onPadding.map((p) => `${p.name}@${p.address}+${p.size} (${p.source})`)).toEqual([]);
  });

  it('should list no debugging record among the data that holds an address', async () => {
    const signal = new AbortController().signal;
    const debug = sections(file).filter((s) => s.name.startsWith('.debug_'));
    // The address of __main, of the startup code, is a word of .debug_frame (its FDE's start).
    const main = (await opened.port.addressOf('__main', signal))!;
    const refs = await opened.port.references(main, signal);
    const inDebug = refs.to.filter((r) => {
      const from = Number.parseInt(r.from.slice(2), 16);
      return debug.some((s) => from >= s.start && from < s.end);
    });
    expect(inDebug).toEqual([]);
    // The call made by code is still there.
    expect(refs.to.map((r) => r.kind)).toContain('call');
  });
});

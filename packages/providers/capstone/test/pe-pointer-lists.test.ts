// GNU ld lays mingw-w64's constructor and destructor lists out in .text: `__CTOR_LIST__` and
// `__DTOR_LIST__`, each a word of all ones, function pointers, then a zero word. Decoded as code they
// became procedures of junk instructions (`sub_140007ea7`, or `__CTOR_LIST__` itself with symbols).
// The truth is nm's list symbols on the unstripped build and the words read back from the file.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { FIXTURES, allProcedures, openWithCapstone, removeTempDirs } from './support.js';

afterAll(removeTempDirs);

const hex = (n: number): string => `0x${n.toString(16)}`;

/** The file bytes at virtual address `address`, through the section table of `objdump -h`. */
function bytesAt(objdump: string, file: string, address: number, length: number): Buffer {
  for (const line of execFileSync(objdump, ['-h', file], { encoding: 'utf8' }).split('\n')) {
    const m = /^\s*\d+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s/.exec(line);
    if (!m) continue;
    const [size, vma, offset] = [m[1]!, m[2]!, m[3]!].map((v) => Number.parseInt(v, 16)) as [number, number, number];
    if (address >= vma && address < vma + size)
      return readFileSync(file).subarray(offset + address - vma, offset + Math.min(address + length, vma + size) - vma);
  }
  throw new Error(`${hex(address)} is in no section of ${file}`);
}

/** The list at `address`: `[start, end)` and its entries, read word by word up to the zero word. */
function listAt(objdump: string, file: string, address: number, word: number) {
  const bytes = bytesAt(objdump, file, address, 64 * word);
  const read = (at: number) => (word === 8 ? Number(bytes.readBigUInt64LE(at)) : bytes.readUInt32LE(at));
  expect(read(0)).toBe(word === 8 ? Number(0xffffffffffffffffn) : 0xffffffff);
  const entries: number[] = [];
  let at = word;
  for (; read(at) !== 0; at += word) entries.push(read(at));
  return { start: address, end: address + at + word, entries };
}

for (const [arch, word] of [
  ['x86_64', 8],
  ['i686', 4],
] as const) {
  const tool = (name: string) => `${arch}-w64-mingw32-${name}`;
  const [gcc, nm, objdump, strip] = [tool('gcc'), tool('nm'), tool('objdump'), tool('strip')] as const;
  skipUnless(toolsMissing(gcc, nm, objdump, strip))(
    `constructor and destructor lists in the code of a ${arch} PE (mingw-w64)`,
    () => {
      let file: string;
      let stripped: string;
      let lists: Array<{ start: number; end: number; entries: number[] }>;
      beforeAll(() => {
        file = compileFixture({
          source: join(FIXTURES, 'sample.c'),
          compiler: gcc,
          args: ['-O2', '-fno-inline'],
          output: `sample-lists-${arch}.exe`,
        });
        stripped = compileFixture({
          source: file,
          compiler: strip,
          args: ['-s'],
          output: `sample-lists-${arch}-stripped.exe`,
        });
        const symbols = new Map<string, number>();
        for (const line of execFileSync(nm, [file], { encoding: 'utf8' }).split('\n')) {
          const m = /^([0-9a-f]+) \S (\S+)$/.exec(line);
          if (m) symbols.set(m[2]!, Number.parseInt(m[1]!, 16));
        }
        lists = ['__CTOR_LIST__', '__DTOR_LIST__'].map((name) => listAt(objdump, file, symbols.get(name)!, word));
        // The lists must lie in .text, or this would not exercise the defect.
        const text = execFileSync(objdump, ['-h', file], { encoding: 'utf8' });
        const m = /^\s*\d+\s+\.text\s+([0-9a-f]+)\s+([0-9a-f]+)\s/m.exec(text)!;
        const [size, vma] = [Number.parseInt(m[1]!, 16), Number.parseInt(m[2]!, 16)];
        for (const list of lists) expect(list.start >= vma && list.end <= vma + size).toBe(true);
        expect(lists[0]!.entries.length).toBeGreaterThan(0);
      });

      for (const build of ['unstripped', 'stripped'] as const) {
        describe(build, () => {
          let opened: Awaited<ReturnType<typeof openWithCapstone>>;
          beforeAll(async () => {
            opened = await openWithCapstone(build === 'stripped' ? stripped : file);
          });
          afterAll(async () => opened?.session.close(new AbortController().signal));

          it('should start no procedure in a list and extend none into one', async () => {
            const overlapping = (await allProcedures(opened.port)).filter((p) => {
              const start = Number.parseInt(p.address.slice(2), 16);
              return lists.some((l) => start < l.end && start + p.size > l.start);
            });
            expect(overlapping.map((p) => `${p.name}@${p.address}+${p.size}`)).toEqual([]);
            const signal = new AbortController().signal;
            for (const l of lists)
              for (let a = l.start; a < l.end; a += 1)
                expect({ at: hex(a), in: await opened.port.containingProcedure(hex(a), signal) }).toEqual({
                  at: hex(a),
                  in: null,
                });
          });

          it('should make each constructor in the list a procedure', async () => {
            const starts = new Set((await allProcedures(opened.port)).map((p) => p.address));
            for (const entry of lists[0]!.entries) expect(starts).toContain(hex(entry));
          });
        });
      }
    },
  );
}

import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { FIXTURES, openWithCapstone } from './support.js';

const source = join(FIXTURES, 'switch-a64.c');
const FLAGS = ['-O2', '-nostdlib', '-static', '-ffreestanding', '-fno-builtin'];

/**
 * Ground truth from the toolchain: the compiler's own assembly lists each jump table as
 * `.byte/.2byte (.Lcase - .Lrtx) / 4` lines under its function, and a build that keeps local labels
 * (`-Wa,-L -Wl,--discard-none`) gives each label's address through nm.
 */
function expectedTables(): Map<string, number[]> {
  const asm = readFileSync(
    compileFixture({ compiler: 'aarch64-linux-gnu-gcc', source, args: [...FLAGS, '-S'], output: 'switch-a64.s' }),
    'utf8',
  );
  const labelled = compileFixture({
    compiler: 'aarch64-linux-gnu-gcc',
    source,
    args: [...FLAGS, '-Wa,-L', '-Wl,--discard-none'],
    output: 'switch-a64-labels',
  });
  const addresses = new Map<string, number>();
  for (const line of execFileSync('aarch64-linux-gnu-nm', [labelled], { encoding: 'utf8' }).split('\n')) {
    const [value, , name] = line.trim().split(/\s+/);
    if (value && name) addresses.set(name, Number.parseInt(value, 16));
  }
  const tables = new Map<string, number[]>();
  let fn = '';
  for (const line of asm.split('\n')) {
    const label = /^([A-Za-z_]\w*):/.exec(line);
    if (label) fn = label[1]!;
    const entry = /^\s+\.(?:byte|2byte|4byte)\s+\((\.L\w+) - \.Lrtx\w+\) \/ 4/.exec(line);
    if (entry) tables.set(fn, [...(tables.get(fn) ?? []), addresses.get(entry[1]!)!]);
  }
  return tables;
}

/** Instruction addresses in objdump's listing of `file`. */
function objdumpInstructions(file: string): Set<number> {
  const out = execFileSync('aarch64-linux-gnu-objdump', ['-d', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return new Set([...out.matchAll(/^\s+([0-9a-f]+):\s+[0-9a-f]{8}\s/gm)].map((m) => Number.parseInt(m[1]!, 16)));
}

skipUnless(toolsMissing('aarch64-linux-gnu-gcc', 'aarch64-linux-gnu-nm', 'aarch64-linux-gnu-objdump'))(
  'AArch64 jump tables (cross gcc)',
  () => {
    let opened: Awaited<ReturnType<typeof openWithCapstone>>;
    let program: string;
    beforeAll(async () => {
      program = compileFixture({ compiler: 'aarch64-linux-gnu-gcc', source, args: FLAGS, output: 'switch-a64' });
      opened = await openWithCapstone(program);
    });
    afterAll(async () => {
      await opened?.session.close(new AbortController().signal);
    });

    it('resolves byte and halfword tables to the case labels the compiler emitted, as table edges', async () => {
      const truth = expectedTables();
      expect([...truth.keys()].sort()).toEqual(['pick_far', 'pick_near']);
      const signal = new AbortController().signal;
      const instructions = objdumpInstructions(program);
      const asm = readFileSync(
        compileFixture({ compiler: 'aarch64-linux-gnu-gcc', source, args: [...FLAGS, '-S'], output: 'switch-a64.s' }),
        'utf8',
      );
      // One table of each entry width, so both load shapes are exercised.
      expect(asm).toMatch(/\bldrb\b/);
      expect(asm).toMatch(/\bldrh\b/);
      for (const [name, labels] of truth) {
        const address = await opened.port.addressOf(name, signal);
        expect(address).not.toBeNull();
        const flow = await opened.port.controlFlow(address!, signal);
        const targets = flow.edges.filter((e) => e.kind === 'table').map((e) => Number.parseInt(e.to.slice(2), 16));
        expect(targets.sort((a, b) => a - b)).toEqual([...new Set(labels)].sort((a, b) => a - b));
        expect(labels.length).toBe(12);
        // Every target is an instruction of objdump's listing, and the dispatch is no longer an unknown.
        for (const t of targets) expect(instructions.has(t)).toBe(true);
        expect(flow.unresolved.filter((u) => u.kind === 'indirect-jump')).toEqual([]);
        // Each case target starts a basic block.
        const starts = new Set(flow.blocks.map((b) => Number.parseInt(b.start.slice(2), 16)));
        for (const t of targets) expect(starts.has(t)).toBe(true);
      }
    });
  },
);

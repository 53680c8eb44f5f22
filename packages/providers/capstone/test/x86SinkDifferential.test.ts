/*
 * The x86 sweep classifies instructions from the engine's memory (operand fields read in place, the
 * operation cached per instruction id). This compares it, instruction by instruction, with the
 * text classifier `classifyX86` applied to Capstone's own formatted mnemonic and operand text, over
 * compiled fixtures and a large system binary. The modules are internal, so they are imported from
 * the package source.
 */
import { expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { decoderSource } from '../src/engine.js';
import type { Decoder } from '../src/engine.js';
import { Flow, RefKind, classifyX86 } from '../src/analysis/classify.js';
import { addressOrNaN, codeSections, sweep } from '../src/analysis/sweep.js';
import type { InstructionTable } from '../src/analysis/sweep.js';
import { FIXTURES, freestandingX86 } from './support.js';

const sample = join(FIXTURES, 'sample.c');

interface Comparison {
  instructions: number;
  /** Every difference found; the first 20 are described in `mismatches`. */
  differences: number;
  mismatches: string[];
  /** How many instructions of each flow / ref kind were compared (so a pass is not vacuous). */
  flows: Map<number, number>;
  refKinds: Map<number, number>;
  targets: number;
}

const show = (n: number) => (Number.isNaN(n) ? 'NaN' : `0x${n.toString(16)}`);

/** Every instruction of the sweep's table, reclassified from Capstone's text, compared field by field. */
function compare(layout: BinaryLayout, decoder: Decoder, table: InstructionTable): Comparison {
  const out: Comparison = {
    instructions: 0,
    differences: 0,
    mismatches: [],
    flows: new Map(),
    refKinds: new Map(),
    targets: 0,
  };
  const sections = codeSections(layout);
  const inSection = (a: number) => sections.some((s) => a >= s.address && a < s.address + s.size);
  const note = (text: string) => {
    out.differences += 1;
    if (out.mismatches.length < 20) out.mismatches.push(text);
  };
  let i = 0;
  while (i < table.count) {
    // A run of back-to-back instructions: decoding from its start yields the same instructions.
    let j = i + 1;
    while (j < table.count && table.addressAt(j - 1) + table.size[j - 1]! === table.addressAt(j)) j += 1;
    const start = table.addressAt(i);
    const end = table.addressAt(j - 1) + table.size[j - 1]!;
    if (!inSection(start)) note(`${show(start)}: outside every code section`);
    const rows = decoder.decode(layout.readAt(start, end - start)!, start);
    if (rows.length !== j - i) note(`${show(start)}: ${rows.length} instructions decoded, the sweep has ${j - i}`);
    for (let k = 0; k < rows.length; k += 1) {
      const row = rows[k]!;
      const n = i + k;
      if (row.address !== table.addressAt(n)) note(`${show(row.address)}: the sweep has ${show(table.addressAt(n))}`);
      // The table keeps only addresses the analysis can format (see addressOrNaN).
      const sem = classifyX86(row.mnemonic, row.operands, row.address, row.size, layout.bits);
      const ref = addressOrNaN(sem.ref);
      const want = {
        flow: sem.flow,
        target: addressOrNaN(sem.target),
        ref,
        refKind: Number.isNaN(ref) ? RefKind.None : sem.refKind,
      };
      const got = { flow: table.flowAt(n), target: table.target(n), ref: table.ref(n), refKind: table.refKindAt(n) };
      const same =
        got.flow === want.flow &&
        Object.is(got.target, want.target) &&
        Object.is(got.ref, want.ref) &&
        got.refKind === want.refKind;
      if (!same)
        note(
          `${show(row.address)} ${row.mnemonic} ${row.operands}: text ${want.flow}/${show(want.target)}/${show(want.ref)}/${want.refKind}, ` +
            `sink ${got.flow}/${show(got.target)}/${show(got.ref)}/${got.refKind}`,
        );
      out.flows.set(want.flow, (out.flows.get(want.flow) ?? 0) + 1);
      out.refKinds.set(want.refKind, (out.refKinds.get(want.refKind) ?? 0) + 1);
      if (!Number.isNaN(want.target)) out.targets += 1;
    }
    out.instructions += rows.length;
    i = j;
  }
  return out;
}

async function differential(file: string, label: string): Promise<Comparison> {
  const layout = parseBinaryLayout(readFileSync(file));
  expect(['x86_64', 'x86']).toContain(layout.architecture);
  const source = decoderSource(layout.architecture as 'x86_64' | 'x86');
  const decoder = await source.get();
  try {
    // Capstone decodes every instruction here (the fast x86-64 reader is compared in fastX86.test.ts).
    const table = await sweep(layout, source, [], new AbortController().signal, 'engine');
    expect(table.engineDecoded).toBe(table.count);
    const result = compare(layout, decoder, table);
    console.log(
      `${label}: ${result.instructions} instructions compared (${result.targets} branch targets, ` +
        `${result.refKinds.get(RefKind.Memory) ?? 0} memory refs, ${result.refKinds.get(RefKind.Value) ?? 0} value refs), ` +
        `${result.differences} differences`,
    );
    expect(result.mismatches).toEqual([]);
    expect(result.differences).toBe(0);
    expect(result.instructions).toBe(table.count);
    // Direct transfers and addressed operands were among the instructions compared.
    expect(result.flows.get(Flow.Call) ?? 0).toBeGreaterThan(0);
    expect(result.flows.get(Flow.Return) ?? 0).toBeGreaterThan(0);
    expect(result.flows.get(Flow.Conditional) ?? 0).toBeGreaterThan(0);
    expect(result.refKinds.get(RefKind.Memory) ?? 0).toBeGreaterThan(0);
    return result;
  } finally {
    source.close();
  }
}

skipUnless(toolsMissing('gcc'))('x86 sink equals the text classifier: gcc fixtures', () => {
  it('x86-64 ELF (sample.c, gcc -O2)', async () => {
    const file = compileFixture({
      source: sample,
      compiler: 'gcc',
      args: ['-O2', '-g', '-fno-inline'],
      output: 'sample-x64',
    });
    const result = await differential(file, 'sample-x64');
    expect(result.refKinds.get(RefKind.Value) ?? 0).toBeGreaterThan(0);
  });
  it('x86 (32-bit) ELF (freestanding.c, gcc -m32, absolute addresses)', async () => {
    const file = freestandingX86();
    const result = await differential(file, 'freestanding-x86');
    // Non-PIC 32-bit code loads addresses as immediates.
    expect(result.refKinds.get(RefKind.Value) ?? 0).toBeGreaterThan(0);
  });
});

skipUnless(toolsMissing('x86_64-w64-mingw32-gcc', 'i686-w64-mingw32-gcc'))(
  'x86 sink equals the text classifier: mingw-w64 PE fixtures',
  () => {
    it.each([
      ['x86_64-w64-mingw32-gcc', 'sample.exe'],
      ['i686-w64-mingw32-gcc', 'sample32.exe'],
    ])('%s %s', async (compiler, output) => {
      const file = compileFixture({ source: sample, compiler, args: ['-O2', '-fno-inline'], output });
      await differential(file, output);
    });
  },
);

const BASH = '/usr/bin/bash';
skipUnless(existsSync(BASH) ? null : `${BASH} is absent`)('x86 sink equals the text classifier: system binary', () => {
  it(`${BASH}: every instruction of its code sections`, async () => {
    const layout = parseBinaryLayout(readFileSync(BASH));
    if (layout.architecture !== 'x86_64' && layout.architecture !== 'x86') {
      console.warn(`skipped: ${BASH} is ${layout.architecture}, not x86`);
      return;
    }
    const result = await differential(BASH, BASH);
    expect(result.instructions).toBeGreaterThan(50_000);
    expect(result.flows.get(Flow.IndirectCall) ?? 0).toBeGreaterThan(0);
    expect(result.refKinds.get(RefKind.Value) ?? 0).toBeGreaterThan(0);
  });
});

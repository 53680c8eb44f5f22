/*
 * One invalid byte in 30 MB of code (`fe 66 2e 0f 1f 84 …`, a damaged multi-byte NOP between two
 * functions of libclang) used to load the WebAssembly engine, about 20 MiB, only for Capstone to
 * decode nothing there. Opcode FE with a ModRM extension other than /0 and /1 is invalid in every
 * mode: the sweep skips it as Capstone would, without the engine. Held to Capstone over every such
 * ModRM byte with varied tails in both modes, and over a system program whose padding is so damaged.
 * Likewise an instruction cut short by the next function start: Capstone, given the bytes up to that
 * start, decodes nothing, and the sweep no longer asks it.
 * The modules are internal, so they are imported from the package source.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseBinaryLayout } from '@rea/artifact';
import { decoderSource } from '../src/engine.js';
import type { Decoder, DecoderSource } from '../src/engine.js';
import { knownInvalidX86 } from '../src/analysis/fastX86.js';
import { codeSections, sweep } from '../src/analysis/sweep.js';
import type { InstructionTable } from '../src/analysis/sweep.js';

const sources: DecoderSource[] = [];
const decoders: Record<64 | 32, Decoder | null> = { 64: null, 32: null };
beforeAll(async () => {
  for (const bits of [64, 32] as const) {
    const source = decoderSource(bits === 64 ? 'x86_64' : 'x86');
    sources.push(source);
    decoders[bits] = await source.get();
  }
});
afterAll(() => {
  for (const source of sources) source.close();
});

/** The first rows (up to five) where two instruction tables differ. */
function differences(a: InstructionTable, b: InstructionTable): string[] {
  const row = (t: InstructionTable, i: number) =>
    [t.addressAt(i), t.size[i], t.flowAt(i), t.target(i), t.ref(i), t.refKindAt(i)].map(String).join(' ');
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.count, b.count) && out.length < 5; i += 1)
    if (row(a, i) !== row(b, i)) out.push(`#${i}: ${row(a, i)} / ${row(b, i)}`);
  return out;
}

const TAILS = ['', '00', '2e0f1f840000000000', '78563412aabbccdd', 'ffffffffffffffff'];

describe('issue 22: invalid FE encodings are skipped without loading the engine', () => {
  it('agrees with Capstone on every ModRM byte after FE, in both modes', () => {
    const disagreements: string[] = [];
    let invalid = 0;
    for (const bits of [64, 32] as const) {
      for (let modrm = 0; modrm < 256; modrm += 1) {
        for (const tail of TAILS) {
          const bytes = Buffer.from(`fe${modrm.toString(16).padStart(2, '0')}${tail}`, 'hex');
          const decoded = decoders[bits]!.scan(bytes, 0x401000, () => {}, 1);
          const known = knownInvalidX86(bytes, 0, bytes.length, 0x401000, bits === 64);
          if (known) invalid += 1;
          // Known invalid for every extension but /0 and /1, and then Capstone decodes nothing.
          if (known !== ((modrm >> 3) & 7) >= 2 || (known && decoded !== 0))
            disagreements.push(`${bits}-bit ${bytes.toString('hex')}: known ${known}, Capstone consumed ${decoded}`);
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(invalid).toBe(2 * 192 * TAILS.length);
    expect(knownInvalidX86(Buffer.from('fe', 'hex'), 0, 1, 0x401000, true)).toBe(false);
    expect(knownInvalidX86(Buffer.from('fec0', 'hex'), 0, 2, 0x401000, true)).toBe(false);
  });

  it('knows an instruction cut short by the end of the bytes given as one Capstone decodes nothing of', async () => {
    const layout = parseBinaryLayout(readFileSync('/usr/bin/ls'));
    const text = codeSections(layout).find((s) => s.name === '.text')!;
    const bytes = layout.readAt(text.address, text.fileSize)!;
    const table = await sweep(layout, decoderSource('x86_64'), [], new AbortController().signal, 'fast');
    const problems: string[] = [];
    let checked = 0;
    for (let i = 0; i < table.count && checked < 3000; i += 1) {
      const offset = table.addressAt(i) - text.address;
      const size = table.size[i]!;
      if (offset < 0 || offset + size > bytes.length || size < 2) continue;
      checked += 1;
      const end = offset + size - 1;
      const known = knownInvalidX86(bytes, offset, end, table.addressAt(i), true);
      const decoded = decoders[64]!.scan(bytes.subarray(offset, end), table.addressAt(i), () => {}, 1);
      if (!known || decoded !== 0) problems.push(`#${i}: known ${known}, Capstone consumed ${decoded}`);
    }
    expect(checked).toBe(3000);
    expect(problems).toEqual([]);
  });

  it('sweeps a program whose function starts cut instructions short to the table Capstone gives', async () => {
    const layout = parseBinaryLayout(readFileSync('/usr/bin/ls'));
    const signal = new AbortController().signal;
    const plain = await sweep(layout, decoderSource('x86_64'), [], signal, 'fast');
    // Starts one byte into every 97th instruction of two bytes or more.
    const anchors: number[] = [];
    for (let i = 0; i < plain.count; i += 97) if (plain.size[i]! >= 2) anchors.push(plain.addressAt(i) + 1);
    const fastSource = decoderSource('x86_64');
    const engineSource = decoderSource('x86_64');
    try {
      const withReader = await sweep(layout, fastSource, anchors, signal, 'fast');
      const withEngine = await sweep(layout, engineSource, anchors, signal, 'engine');
      // (Restarting one byte into an instruction also reads bytes that only Capstone decodes.)
      expect(differences(withReader, withEngine)).toEqual([]);
      expect(anchors.length).toBeGreaterThan(100);
    } finally {
      fastSource.close();
      engineSource.close();
    }
  });

  it('sweeps a program with an invalid FE in its padding to the table Capstone gives, never loading it', async () => {
    const bytes = readFileSync('/usr/bin/ls');
    const layout0 = parseBinaryLayout(bytes);
    const text = codeSections(layout0).find((s) => s.name === '.text')!;
    // `ret` then an 11-byte NOP: its first byte becomes FE, as found in libclang.
    const at = bytes.indexOf(Buffer.from('c366662e0f1f840000000000', 'hex'), text.offset);
    expect(at).toBeGreaterThan(text.offset);
    expect(at).toBeLessThan(text.offset + text.fileSize);
    const patched = Buffer.from(bytes);
    patched[at + 1] = 0xfe;
    const layout = parseBinaryLayout(patched);
    const signal = new AbortController().signal;
    const fastSource = decoderSource('x86_64');
    const engineSource = decoderSource('x86_64');
    try {
      const withReader = await sweep(layout, fastSource, [], signal, 'fast');
      const withEngine = await sweep(layout, engineSource, [], signal, 'engine');
      expect(fastSource.current).toBeNull();
      expect(differences(withReader, withEngine)).toEqual([]);
      // The damaged byte is skipped: the next instruction starts one byte later.
      const address = text.address + (at + 2 - text.offset);
      expect(Array.from({ length: withEngine.count }, (_, i) => withEngine.addressAt(i))).toContain(address);
    } finally {
      fastSource.close();
      engineSource.close();
    }
  });
});

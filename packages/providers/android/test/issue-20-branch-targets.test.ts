// A branch target in a listing names an instruction by the same number as that instruction's offset
// (16-bit code units, in decimal, as the offset field): every target of every method of a real DEX file
// is the offset of an instruction or payload of the same listing, and the targets agree with dexdump's
// (which writes both in hex).
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DexFile, disassemble } from '../src/index.js';
import { SAMPLES, output } from './support.js';

const DEX = `${SAMPLES}/tests/okhttp.d8.038.dex`;

describe('branch targets in listings', () => {
  it('should name instructions of the same listing by their offsets, as dexdump does in hex', () => {
    const dex = new DexFile(readFileSync(DEX));
    let targets = 0;
    const mine: string[] = [];
    for (let i = 0; i < dex.classDefs.size; i++) {
      const def = dex.classDef(i);
      const data = dex.classData(def.classDataOff);
      for (const m of [...data.directMethods, ...data.virtualMethods]) {
        if (m.codeOff === 0) continue;
        const code = dex.code(m.codeOff);
        const listing = disassemble(dex, code.insnsOff, code.insnsSize, Infinity);
        const offsets = new Set(listing.instructions.map((x) => x.offset));
        for (const x of listing.instructions) {
          for (const [, n] of x.text.matchAll(/:(\d+)\b/g)) {
            targets += 1;
            expect([x.text, offsets.has(Number(n))]).toEqual([x.text, true]);
            if (/^(if-|goto)/.test(x.mnemonic)) mine.push(`${x.offset}>${n}`);
          }
        }
      }
    }
    expect(targets).toBeGreaterThan(1000);
    // dexdump: "|001f: if-eqz v3, 0033 // +0014": the instruction's offset and its target, in hex.
    const theirs = [
      ...output('dexdump', ['-d', DEX]).matchAll(/\|([0-9a-f]{4}): (?:if-\S+|goto\S*) [^\n]*?([0-9a-f]{4}) \/\/ [+-]/g),
    ].map((m) => `${parseInt(m[1]!, 16)}>${parseInt(m[2]!, 16)}`);
    expect(theirs.length).toBeGreaterThan(1000);
    expect(mine.sort()).toEqual(theirs.sort());
  });
});

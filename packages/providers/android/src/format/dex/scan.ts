import type { DexFile } from './file.js';
import { FORMAT_UNITS, OPCODES } from './opcodes.js';
import type { IndexKind } from './opcodes.js';

/** One indexed operand met while scanning a method's code. */
export interface IndexUse {
  kind: Exclude<IndexKind, null>;
  index: number;
  /** Offset of the instruction, in code units. */
  offset: number;
  opcode: number;
}

/**
 * Calls `visit` for every index operand in the code (`insnsSize` units at `insnsOff`), stopping at an
 * instruction or payload that would run past the end. Reads nothing outside the instruction array.
 */
export function scanIndexes(dex: DexFile, insnsOff: number, insnsSize: number, visit: (use: IndexUse) => void): void {
  const buffer = dex.bytes.buffer;
  const code = (i: number) => buffer.readUInt16LE(insnsOff + i * 2);
  let at = 0;
  while (at < insnsSize) {
    const unit = code(at);
    const op = unit & 0xff;
    if (op === 0 && unit !== 0) {
      let units = 0;
      if (at + 3 < insnsSize || (unit !== 0x0300 && at + 1 < insnsSize)) {
        if (unit === 0x0100) units = code(at + 1) * 2 + 4;
        else if (unit === 0x0200) units = code(at + 1) * 4 + 2;
        else if (unit === 0x0300) units = Math.ceil((code(at + 1) * (code(at + 2) + code(at + 3) * 0x10000)) / 2) + 4;
      }
      if (units === 0) return;
      at += units;
      continue;
    }
    const opcode = OPCODES[op];
    if (opcode === null || opcode === undefined) {
      at += 1;
      continue;
    }
    const units = FORMAT_UNITS[opcode.format]!;
    if (at + units > insnsSize) return;
    if (opcode.index !== null) {
      const index = opcode.format === '31c' ? code(at + 1) + code(at + 2) * 0x10000 : code(at + 1);
      visit({ kind: opcode.index, index, offset: at, opcode: op });
    }
    at += units;
  }
}

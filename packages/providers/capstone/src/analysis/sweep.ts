import type { BinaryLayout, LayoutSection } from '@rea/artifact';
import type { Decoder, DecoderSource, InstructionCursor } from '../engine.js';
import { Arm64Pages, Flow, RefKind, X86Kind, classifyX86, lastWord, x86Kind } from './classify.js';
import { HAS_REF, HAS_TARGET, knownInvalidX86, measured, readX86 } from './fastX86.js';
import { Pacer } from './pace.js';
import { sortedNumbersPaced } from './sortPaced.js';
import { Columns } from './table.js';
import type { InstructionTable } from './table.js';

export { InstructionTable, addressOrNaN } from './table.js';
export type { AddressColumn } from './table.js';

/** How discovery decodes x86: the fast reader with Capstone for what it leaves, or Capstone alone. */
export type X86Reader = 'fast' | 'engine';

/** The executable sections the engine decodes: allocated, executable, with bytes in the file. */
export function codeSections(layout: BinaryLayout): LayoutSection[] {
  return layout.sections
    .filter((s) => s.flags.execute && s.flags.alloc && s.fileSize > 0 && s.size > 0)
    .sort((a, b) => a.address - b.address);
}

const CHUNK = 0x4000;

/**
 * The x86 instruction sink: an operation's {@link X86Kind} depends only on Capstone's instruction id,
 * so the mnemonic is read once per id; direct branch targets are parsed from engine memory; operand
 * text is built only for the few instructions that can name an address. Equivalent to
 * {@link classifyX86} on every instruction (the tests compare the two instruction by instruction on
 * compiled programs and a system binary).
 */
function x86Sink(out: Columns, bits: number): (address: number, size: number, insn: InstructionCursor) => void {
  const ops: string[] = [];
  const kinds: number[] = [];
  const full = (op: string, insn: InstructionCursor, address: number, size: number) => {
    const sem = classifyX86(op, insn.operands(), address, size, bits);
    out.push(address, size, sem.flow, sem.target, sem.ref, sem.refKind);
  };
  // `[rip ± 0x…]` is by far the most common addressed operand: resolved without building text.
  const rip = (insn: InstructionCursor, next: number) => (bits === 64 ? next + insn.ripDisplacement() : Number.NaN);
  return (address, size, insn) => {
    const id = insn.id;
    let kind = kinds[id];
    if (kind === undefined) {
      ops[id] = lastWord(insn.mnemonic());
      kind = kinds[id] = x86Kind(ops[id]);
    }
    switch (kind) {
      case X86Kind.Call:
      case X86Kind.Jump: {
        const target = insn.hexOperand();
        if (target === target) {
          out.push(address, size, kind === X86Kind.Call ? Flow.Call : Flow.Jump, target, Number.NaN, RefKind.None);
          return;
        }
        const flow = kind === X86Kind.Call ? Flow.IndirectCall : Flow.IndirectJump;
        if (!insn.mayAddressMemory()) {
          out.push(address, size, flow, Number.NaN, Number.NaN, RefKind.None);
          return;
        }
        const slot = rip(insn, address + size);
        if (slot === slot) out.push(address, size, flow, Number.NaN, slot, RefKind.Memory);
        else full(ops[id]!, insn, address, size);
        return;
      }
      case X86Kind.Conditional: {
        const target = insn.hexOperand();
        out.push(
          address,
          size,
          target === target ? Flow.Conditional : Flow.IndirectJump,
          target,
          Number.NaN,
          RefKind.None,
        );
        return;
      }
      case X86Kind.Return:
        out.push(address, size, Flow.Return, Number.NaN, Number.NaN, RefKind.None);
        return;
      case X86Kind.Stop:
        out.push(address, size, Flow.Stop, Number.NaN, Number.NaN, RefKind.None);
        return;
      case X86Kind.Immediate: {
        if (insn.hasMemoryOperand()) {
          const ref = insn.mayAddressMemory() ? rip(insn, address + size) : Number.NaN;
          if (ref === ref) out.push(address, size, Flow.None, Number.NaN, ref, RefKind.Memory);
          else if (insn.mayAddressMemory()) full(ops[id]!, insn, address, size);
          else out.push(address, size, Flow.None, Number.NaN, Number.NaN, RefKind.None);
          return;
        }
        // An immediate of at least 0x1000 may be an address (non-PIC code loads them so).
        const value = insn.trailingHex();
        if (value >= 0x1000 && Number.isSafeInteger(value))
          out.push(address, size, Flow.None, Number.NaN, value, RefKind.Value);
        else out.push(address, size, Flow.None, Number.NaN, Number.NaN, RefKind.None);
        return;
      }
      default:
        if (!insn.mayAddressMemory()) out.push(address, size, Flow.None, Number.NaN, Number.NaN, RefKind.None);
        else {
          const ref = rip(insn, address + size);
          if (ref === ref)
            out.push(address, size, Flow.None, Number.NaN, ref, kind === X86Kind.Lea ? RefKind.Value : RefKind.Memory);
          else full(ops[id]!, insn, address, size);
        }
    }
  };
}

/**
 * Measures instructions from `at` with the fast reader until `stop` (an instruction may run on to
 * `hard`) or until the reader declines one; returns where it stopped. Kept apart from the sweep so
 * that this loop is optimised on its own.
 */
function readRun(
  bytes: Uint8Array,
  at: number,
  stop: number,
  hard: number,
  base: number,
  long: boolean,
  out: Columns,
): number {
  while (at < stop) {
    const size = readX86(bytes, at, hard, at + base, long);
    if (size === 0) break;
    const has = measured.has;
    out.push(
      at + base,
      size,
      measured.flow,
      has & HAS_TARGET ? measured.target : Number.NaN,
      has & HAS_REF ? measured.ref : Number.NaN,
      measured.refKind,
    );
    at += size;
  }
  return at;
}

/** Bytes `[start, end)` of a code section known to be data. */
export interface DataRange {
  start: number;
  end: number;
}

/**
 * Decodes every executable section linearly, restarting at each anchor (known function start) so that
 * a desynchronised decode never swallows a function entry. Invalid bytes are skipped (1 byte on x86, 4
 * on AArch64), as a disassembler listing does; the `data` ranges (ascending, disjoint) are not decoded
 * at all, and no instruction runs into one. On x86 the fast reader measures what it can and Capstone
 * decodes the rest one instruction at a time (the engine is opened only if that happens).
 */
export async function sweep(
  layout: BinaryLayout,
  source: DecoderSource,
  anchors: readonly number[] | Float64Array,
  signal: AbortSignal,
  reader: X86Reader = 'fast',
  pacer: Pacer = new Pacer(signal),
  data: readonly DataRange[] = [],
): Promise<InstructionTable> {
  // Typical code averages 3.5-4 bytes per instruction (x86) or exactly 4 (AArch64): size the columns once.
  const code = codeSections(layout);
  const codeBytes = code.reduce((sum, s) => sum + Math.min(s.size, s.fileSize), 0);
  // Every instruction starts below the end of its section: 32-bit addresses when they all fit.
  const narrow = code.every((s) => s.address + Math.min(s.size, s.fileSize) <= 0x1_0000_0000);
  const out = new Columns(Math.max(1024, Math.ceil(codeBytes / (source.architecture === 'aarch64' ? 4 : 3.5))), narrow);
  // Anchors given twice change nothing below: no set of hundreds of thousands is built to drop them.
  const sorted = await sortedNumbersPaced(anchors, pacer, 'disassembly');
  const arm = source.architecture === 'aarch64';
  const fastReader = reader === 'fast' && source.architecture !== 'aarch64';
  const long = source.architecture === 'x86_64';
  let decoder: Decoder | null = fastReader ? null : await source.get();
  const pages = new Arm64Pages();
  const step = arm ? 4 : 1;
  let engineDecoded = 0;
  const x86 = arm ? null : x86Sink(out, layout.bits);
  const sink = x86
    ? (address: number, size: number, insn: InstructionCursor) => {
        engineDecoded += 1;
        x86(address, size, insn);
      }
    : (address: number, size: number, insn: InstructionCursor) => {
        engineDecoded += 1;
        const sem = pages.classify(insn.mnemonic(), insn.operands());
        out.push(address, size, sem.flow, sem.target, sem.ref, sem.refKind);
        if (sem.flow !== Flow.None && sem.flow !== Flow.Call) pages.reset();
      };
  await pacer.maybe('disassembly');
  for (const section of codeSections(layout)) {
    const length = Math.min(section.size, section.fileSize);
    const bytes = layout.readAt(section.address, length);
    if (!bytes) continue;
    const base = smallInteger(section.address);
    const end = base + length;
    let anchorIndex = lowerBound(sorted, base + 1);
    let dataIndex = 0;
    let pos = base;
    while (pos < end) {
      while (dataIndex < data.length && data[dataIndex]!.end <= pos) dataIndex += 1;
      const skip = data[dataIndex];
      if (skip !== undefined && skip.start <= pos) {
        pos = Math.min(end, smallInteger(skip.end));
        pages.reset();
        continue;
      }
      while (anchorIndex < sorted.length && sorted[anchorIndex]! <= pos) anchorIndex += 1;
      let limit = anchorIndex < sorted.length && sorted[anchorIndex]! < end ? sorted[anchorIndex]! : end;
      if (skip !== undefined && skip.start < limit) limit = smallInteger(skip.start);
      let consumed: number;
      if (fastReader) {
        // Measure up to the next anchor; one instruction through Capstone wherever the reader declines.
        const hard = limit - base;
        const at = readRun(bytes, pos - base, Math.min(limit, pos + CHUNK) - base, hard, base, long, out);
        consumed = at + base - pos;
        // Bytes known to be invalid are skipped below as Capstone would have them skipped, without it.
        if (consumed === 0 && !knownInvalidX86(bytes, at, hard, pos, long)) {
          decoder ??= await source.get();
          consumed = decoder.scan(bytes.subarray(at, Math.min(hard, at + 15)), pos, sink, 1);
        }
      } else {
        const chunkEnd = Math.min(limit, pos + CHUNK);
        consumed = decoder!.scan(bytes.subarray(pos - base, chunkEnd - base), pos, sink);
      }
      if (pacer.due()) await pacer.turn('disassembly');
      if (consumed === 0) {
        pos = Math.min(pos + step, limit);
        pages.reset();
        continue;
      }
      pos += consumed;
      if (pos === limit) pages.reset();
    }
  }
  return out.table(engineDecoded);
}

/**
 * `value` as a small integer when it is a non-negative integer below 2^30, else unchanged. The layout
 * parses addresses as doubles, and until the hot loops are optimised every sum with a double allocates
 * a heap number (several per instruction); sums of small integers allocate nothing.
 */
export function smallInteger(value: number): number {
  return value >= 0 && value < 0x4000_0000 && value === Math.floor(value) ? value | 0 : value;
}

/** The first index whose value is >= `value` in a sorted array. */
export function lowerBound(values: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index of the instruction starting exactly at `address`, or -1. */
export function instructionAt(table: InstructionTable, address: number): number {
  const i = table.lowerBound(address);
  return i < table.count && table.addressAt(i) === address ? i : -1;
}

export { Flow, RefKind };

import { throwIfAborted } from '@rea/evidence';
import type { BinaryLayout, LayoutSection } from '@rea/artifact';
import type { Decoder } from '../engine.js';
import { Arm64Pages, Flow, RefKind, classifyX86 } from './classify.js';

/** The decoded instruction stream of every executable section, in address order (struct of arrays). */
export interface InstructionTable {
  count: number;
  address: Float64Array;
  size: Uint8Array;
  flow: Uint8Array;
  target: Float64Array;
  ref: Float64Array;
  refKind: Uint8Array;
}

/** The executable sections the engine decodes: allocated, executable, with bytes in the file. */
export function codeSections(layout: BinaryLayout): LayoutSection[] {
  return layout.sections
    .filter((s) => s.flags.execute && s.flags.alloc && s.fileSize > 0 && s.size > 0)
    .sort((a, b) => a.address - b.address);
}

class Growable {
  address: number[] = [];
  size: number[] = [];
  flow: number[] = [];
  target: number[] = [];
  ref: number[] = [];
  refKind: number[] = [];
}

const CHUNK = 0x4000;

/** Yields to the event loop so deadlines and cancellation can fire during long analysis. */
export function breathe(signal: AbortSignal, phase: string): Promise<void> {
  throwIfAborted(signal, phase);
  return new Promise((resolve) => setImmediate(resolve)).then(() => throwIfAborted(signal, phase));
}

/**
 * Decodes every executable section linearly, restarting at each anchor (known function start) so that
 * a desynchronised decode never swallows a function entry. Invalid bytes are skipped (1 byte on x86, 4
 * on AArch64), as a disassembler listing does.
 */
export async function sweep(
  layout: BinaryLayout,
  decoder: Decoder,
  anchors: readonly number[],
  signal: AbortSignal,
): Promise<InstructionTable> {
  const out = new Growable();
  const sorted = [...new Set(anchors)].sort((a, b) => a - b);
  const arm = decoder.architecture === 'aarch64';
  const pages = new Arm64Pages();
  const step = arm ? 4 : 1;
  let calls = 0;
  const bits = layout.bits;
  const sink = (address: number, size: number, mnemonic: string, operands: string) => {
    const sem = arm ? pages.classify(mnemonic, operands) : classifyX86(mnemonic, operands, address, size, bits);
    out.address.push(address);
    out.size.push(size);
    out.flow.push(sem.flow);
    out.target.push(sem.target);
    out.ref.push(sem.ref);
    out.refKind.push(sem.refKind);
    if (arm && sem.flow !== Flow.None && sem.flow !== Flow.Call) pages.reset();
  };
  for (const section of codeSections(layout)) {
    const length = Math.min(section.size, section.fileSize);
    const bytes = layout.readAt(section.address, length);
    if (!bytes) continue;
    const base = section.address;
    const end = base + length;
    let anchorIndex = lowerBound(sorted, base + 1);
    let pos = base;
    while (pos < end) {
      while (anchorIndex < sorted.length && sorted[anchorIndex]! <= pos) anchorIndex += 1;
      const limit = anchorIndex < sorted.length && sorted[anchorIndex]! < end ? sorted[anchorIndex]! : end;
      const chunkEnd = Math.min(limit, pos + CHUNK);
      const consumed = decoder.scan(bytes.subarray(pos - base, chunkEnd - base), pos, sink);
      if ((calls += 1) % 32 === 0) await breathe(signal, 'disassembly');
      if (consumed === 0) {
        pos = Math.min(pos + step, limit);
        pages.reset();
        continue;
      }
      pos += consumed;
      if (pos === limit) pages.reset();
    }
  }
  return {
    count: out.address.length,
    address: Float64Array.from(out.address),
    size: Uint8Array.from(out.size),
    flow: Uint8Array.from(out.flow),
    target: Float64Array.from(out.target),
    ref: Float64Array.from(out.ref),
    refKind: Uint8Array.from(out.refKind),
  };
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
  const i = lowerBound(table.address, address);
  return i < table.count && table.address[i] === address ? i : -1;
}

export { Flow, RefKind };

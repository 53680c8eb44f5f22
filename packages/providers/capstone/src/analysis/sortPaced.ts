import { CHECK_MASK } from './pace.js';
import type { Pacer } from './pace.js';

/** Numbers sorted natively at once (a few milliseconds at most); longer inputs are sorted in runs. */
const RUN = 1 << 15;

/**
 * The numbers of `values` in ascending order, as a typed array — what `Float64Array.from(values).sort()`
 * gives — without one long synchronous step: the values are copied, runs of {@link RUN} sorted
 * natively and merged, with turns of the event loop through `pacer` (`cancelled` naming `phase`).
 */
export async function sortedNumbersPaced(
  values: Iterable<number> | Float64Array,
  pacer: Pacer,
  phase: string,
): Promise<Float64Array> {
  // Checked without an await per value: a turn is awaited only when one is due.
  const due = (i: number): boolean => (i & CHECK_MASK) === 0 && pacer.due();
  let from: Float64Array;
  if (values instanceof Float64Array) from = new Float64Array(values);
  else {
    const copied: number[] = [];
    for (const value of values) {
      if (due(copied.length)) await pacer.turn(phase);
      copied.push(value);
    }
    from = new Float64Array(copied.length);
    for (let i = 0; i < copied.length; i += 1) {
      if (due(i)) await pacer.turn(phase);
      from[i] = copied[i]!;
    }
  }
  for (let start = 0; start < from.length; start += RUN) {
    from.subarray(start, start + RUN).sort();
    await pacer.maybe(phase);
  }
  if (from.length <= RUN) return from;
  let to: Float64Array = new Float64Array(from.length);
  let moved = 0;
  for (let width = RUN; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width) {
      const mid = Math.min(lo + width, from.length);
      const hi = Math.min(lo + 2 * width, from.length);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k += 1) {
        to[k] = i < mid && (j >= hi || from[i]! <= from[j]!) ? from[i++]! : from[j++]!;
        if (due(++moved)) await pacer.turn(phase);
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

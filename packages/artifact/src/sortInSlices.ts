import { CHECK_EVERY } from './layout/cooperative.js';
import type { Work } from './layout/cooperative.js';

/** Orders by `path`, comparing UTF-16 code units (as `Array.prototype.sort` orders strings). */
export const byPath = (a: { path: string }, b: { path: string }): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/** Runs shorter than this are sorted in one go (insertion order kept: the sort is stable). */
const RUN = 32;
/** Runs sorted between two checkpoints. */
const RUNS_PER_CHECK = CHECK_EVERY / RUN / 4;

/**
 * A stable sort of a copy of `items` by `compare`, as work for a driver of ./layout/cooperative.js: a
 * bottom-up merge sort that yields a checkpoint every {@link CHECK_EVERY} items moved, so that sorting
 * a table of hundreds of thousands of entries does not hold the event loop. Already ordered input
 * (the usual case: inventories list their entries in path order) costs one pass.
 */
export function* sortInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number): Work<T[]> {
  let ordered = true;
  for (let i = 1; i < items.length && ordered; i += 1) {
    if (i % CHECK_EVERY === 0) yield;
    if (compare(items[i - 1]!, items[i]!) > 0) ordered = false;
  }
  if (ordered) return items.slice();
  let from = items.slice();
  for (let start = 0; start < from.length; start += RUN) {
    const run = from.slice(start, start + RUN).sort(compare);
    for (let k = 0; k < run.length; k += 1) from[start + k] = run[k]!;
    // A run takes about RUN × log2(RUN) comparisons: a checkpoint every few runs.
    if ((start / RUN) % RUNS_PER_CHECK === RUNS_PER_CHECK - 1) yield;
  }
  let to = new Array<T>(from.length);
  let moved = 0;
  for (let width = RUN; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width) {
      const mid = Math.min(lo + width, from.length);
      const hi = Math.min(lo + 2 * width, from.length);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k += 1) {
        // Ties take the left run first: stable.
        to[k] = i < mid && (j >= hi || compare(from[i]!, from[j]!) <= 0) ? from[i++]! : from[j++]!;
        moved += 1;
        if (moved % CHECK_EVERY === 0) yield;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

/** Orders strings by UTF-16 code units (as `Array.prototype.sort` does by default). */
export const codeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

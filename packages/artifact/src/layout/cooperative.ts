import { setImmediate as nextTurn } from 'node:timers/promises';
import { monotonicMs, throwIfAborted } from '@rea/evidence';

/**
 * Parsing work written once for two drivers. The parsers are generators: they yield a phase name
 * between phases and `undefined` every so many table entries inside long loops. The synchronous
 * driver runs them straight through (checking the signal between phases); the cooperative driver
 * gives the event loop a turn at every phase and whenever a slice of work has run for long enough,
 * and checks the signal each time, so a cancel takes effect while a large binary is parsed.
 */
export type Work<T> = Generator<string | undefined, T, void>;

/** Table entries between two checkpoints of a long loop. */
export const CHECK_EVERY = 1024;

/** Longest stretch of work the cooperative driver runs before giving the event loop a turn (ms). */
export const SLICE_MS = 10;

/** Runs `work` to completion synchronously; an aborted signal throws `cancelled` at the next phase. */
export function runToCompletion<T>(work: Work<T>, signal: AbortSignal | undefined): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (step.value !== undefined) throwIfAborted(signal, step.value);
  }
}

/**
 * Runs `work` a slice at a time: at every phase, and at a loop checkpoint once `SLICE_MS` have passed
 * since the last turn, it waits for the event loop's next turn and throws `cancelled` when `signal`
 * has been aborted meanwhile. An abandoned generator is closed, so its `finally` blocks run.
 */
export async function runCooperatively<T>(work: Work<T>, signal: AbortSignal | undefined): Promise<T> {
  let phase = 'start';
  try {
    let sliceStart = monotonicMs();
    for (;;) {
      const step = work.next();
      if (step.done) return step.value;
      if (step.value !== undefined) phase = step.value;
      else if (monotonicMs() - sliceStart < SLICE_MS && !signal?.aborted) continue;
      await nextTurn();
      throwIfAborted(signal, phase);
      sliceStart = monotonicMs();
    }
  } finally {
    work.return(undefined as never);
  }
}

/**
 * The same checkpoint for async loops (an inventory, a central directory, an extraction): `turn` gives
 * the event loop a turn once `SLICE_MS` have passed since the last one, or when `signal` has been
 * aborted, and then throws `cancelled` naming `phase` if it was. Between turns it costs a clock read.
 * Loops whose awaits settle as microtasks (cached reads, in-memory hashing) need it: a microtask
 * never lets timers, I/O or other requests run.
 */
export class Pacer {
  private sliceStart = monotonicMs();

  /** A pacer for one call's loops, cancelled through `signal`. */
  constructor(private readonly signal: AbortSignal | undefined) {}

  /** True when {@link turn} would yield: the current slice is spent, or the signal aborted. */
  due(): boolean {
    return monotonicMs() - this.sliceStart >= SLICE_MS || this.signal?.aborted === true;
  }

  /** Yields to the event loop when the current slice is spent; throws `cancelled` when aborted. */
  async turn(phase: string): Promise<void> {
    if (monotonicMs() - this.sliceStart < SLICE_MS && !this.signal?.aborted) return;
    await nextTurn();
    throwIfAborted(this.signal, phase);
    this.sliceStart = monotonicMs();
  }
}

/** Maps `items` through `fn`, yielding a checkpoint every {@link CHECK_EVERY} items. */
export function* mapCooperatively<A, B>(items: readonly A[], fn: (item: A) => B): Work<B[]> {
  const out: B[] = new Array<B>(items.length);
  for (let i = 0; i < items.length; i += 1) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1) yield;
    out[i] = fn(items[i]!);
  }
  return out;
}

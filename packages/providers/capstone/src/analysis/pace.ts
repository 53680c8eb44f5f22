import { setImmediate as nextTurn } from 'node:timers/promises';
import { monotonicMs, throwIfAborted } from '@rea/evidence';

/** Longest stretch of analysis run before the event loop gets a turn (ms). */
export const SLICE_MS = 10;

/** Loop iterations between two clock reads in the analysis passes (a power of two, minus one). */
export const CHECK_MASK = 0x7ff;

/**
 * Elements (instructions, bytes, words, targets) a synchronous slice function handles between two checks
 * of the pacer: its loop is optimised on its own, and the caller gives the event loop turns between slices.
 */
export const SLICE = 0x1_0000;

/**
 * Paces one open's analysis: the passes over the instruction table read the clock every
 * {@link CHECK_MASK} + 1 iterations and, once {@link SLICE_MS} have passed since the last turn (or the
 * open was cancelled), give the event loop a turn and throw `cancelled` naming the phase. Requests,
 * timers and cancellation are so served during the open of a large binary; results do not change.
 */
export class Pacer {
  private sliceStart = monotonicMs();

  /** A pacer for one open, cancelled through `signal`; `sliceMs` is the longest stretch between turns. */
  constructor(
    private readonly signal: AbortSignal,
    private readonly sliceMs: number = SLICE_MS,
  ) {}

  /** Whether the current slice is spent (or the open is cancelled): then call {@link Pacer.turn}. */
  due(): boolean {
    return this.signal.aborted || monotonicMs() - this.sliceStart >= this.sliceMs;
  }

  /** Gives the event loop a turn; throws `cancelled` (`details.phase: phase`) when the open was cancelled. */
  async turn(phase: string): Promise<void> {
    throwIfAborted(this.signal, phase);
    await nextTurn();
    throwIfAborted(this.signal, phase);
    this.sliceStart = monotonicMs();
  }

  /** {@link Pacer.turn} when {@link Pacer.due}: for loops whose iterations are each a sizeable step. */
  async maybe(phase: string): Promise<void> {
    if (this.due()) await this.turn(phase);
  }
}

import { ReaError } from '@rea/evidence';

/** One tool call in flight on a connection: owned work until `done` settles. */
export interface OwnedCall {
  /** The tool's name. */
  readonly name: string;
  /** Aborting it cancels the call (the tool's signal). */
  readonly controller: AbortController;
  /** Settles when the call has answered (its cleanup has finished). */
  readonly done: Promise<unknown>;
}

/** Tools that change which target the session has: ordered one after another, never drained. */
export const TRANSITIONS: ReadonlySet<string> = new Set(['open_binary', 'close_binary']);

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Settles when every call of `calls` has settled or `ms` has passed, whichever is first; resolves with
 * the names of the calls still running.
 */
async function settleWithin(calls: readonly OwnedCall[], ms: number): Promise<string[]> {
  const running = new Set(calls);
  const settled = (call: OwnedCall) => (): void => void running.delete(call);
  const all = Promise.all(calls.map((call) => call.done.then(settled(call), settled(call))));
  await Promise.race([all, pause(ms)]);
  return [...running].map((call) => call.name).sort();
}

/** The tool calls in flight on one connection. */
export class OwnedCalls {
  private readonly calls = new Set<OwnedCall>();

  /** Tracks `call` until its `done` settles. */
  track(call: OwnedCall): void {
    this.calls.add(call);
    const forget = (): void => void this.calls.delete(call);
    void call.done.then(forget, forget);
  }

  /** Calls in flight now: all of them, or (`work`) all but `self` and the session transitions. */
  inFlight(options: { self?: AbortController | undefined; work?: boolean } = {}): OwnedCall[] {
    return [...this.calls].filter(
      (call) => call.controller !== options.self && !(options.work === true && TRANSITIONS.has(call.name)),
    );
  }

  /**
   * Lets `calls` finish for up to `graceMs` (when positive), then cancels those still running through
   * their signal with `reason` and waits up to `cleanupMs` for them to clean up and answer. Resolves
   * with the names of the calls that had still not answered (owned work whose cleanup is not known to
   * have finished).
   */
  async drain(calls: readonly OwnedCall[], reason: ReaError, graceMs: number, cleanupMs: number): Promise<string[]> {
    if (calls.length === 0) return [];
    if (graceMs > 0 && (await settleWithin(calls, graceMs)).length === 0) return [];
    for (const call of calls) call.controller.abort(reason);
    return settleWithin(calls, cleanupMs);
  }
}

/** The reason a call is cancelled with when `close_binary` closes the session under it. */
export function sessionClosed(): ReaError {
  return new ReaError('cancelled', 'close_binary closed the session while this call was running.', {
    details: { phase: 'running', reason: 'session-closed' },
    remediation: 'Open the target again and repeat the call.',
  });
}

/** The reason every call is cancelled with when the connection or the server shuts down. */
export function shuttingDown(): ReaError {
  return new ReaError('cancelled', 'The connection closed while this call was running.', {
    details: { phase: 'running', reason: 'shutdown' },
  });
}

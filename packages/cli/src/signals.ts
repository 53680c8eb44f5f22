import { ReaError } from '@rea/evidence';

/** What the CLI needs of a process to receive termination signals. */
export interface SignalSource {
  on(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: 'SIGINT' | 'SIGTERM', listener: (signal: NodeJS.Signals) => void): unknown;
}

/** One invocation's cancellation: SIGINT and SIGTERM abort `signal`, once. */
export interface SignalScope {
  /** Aborted (with a `cancelled` ReaError as reason) by the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** The first signal received, or null. */
  received(): NodeJS.Signals | null;
  /** Stops listening. Call only after cleanup has finished and the output is written. */
  dispose(): void;
}

/**
 * Turns SIGINT and SIGTERM into the AbortSignal tools and providers receive (the same one MCP
 * cancellation uses). The handlers stay installed until {@link SignalScope.dispose}, so repeated
 * signals — package runners often forward one of their own — cannot kill the process before the
 * running tool has cleaned up its owned processes and temporary directories; they only print a note.
 */
export function createSignalScope(source: SignalSource, note: (message: string) => void): SignalScope {
  const controller = new AbortController();
  let first: NodeJS.Signals | null = null;
  const handler = (signal: NodeJS.Signals): void => {
    if (first === null) {
      first = signal;
      controller.abort(new ReaError('cancelled', `Cancelled by ${signal}.`, { details: { phase: 'running', signal } }));
      note(`${signal}: cancelling; cleaning up owned resources…`);
      return;
    }
    note(`${signal}: still cleaning up; REA exits as soon as cleanup finishes.`);
  };
  source.on('SIGINT', handler);
  source.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    received: () => first,
    dispose() {
      source.off('SIGINT', handler);
      source.off('SIGTERM', handler);
    },
  };
}

import { createCallSupervisor } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';

/** Whether a process with this id exists (signal 0 probes without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A tool context for calling a tool directly in a test: no target, no ledger, no client features,
 * progress and logs discarded, a signal nobody aborts, a fresh call supervisor (one per call: make a
 * new context for each call) — each replaceable through `overrides`.
 */
export function quietToolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  const noop = () => undefined;
  return {
    session: { target: null, binding: null, run_id: null },
    platform: process.platform,
    signal: new AbortController().signal,
    progress: { report: noop },
    logger: { debug: noop, info: noop, warn: noop, error: noop },
    ledger: null,
    clientFeatures: new Set(),
    supervisor: createCallSupervisor(),
    ...overrides,
  };
}

// Runs one analysis in a worker thread this call owns, bounded by a heap limit and a deadline. The
// worker's module is found by this package's name, so it is found whether the caller runs from the
// installed package or from a bundle (rea's command line) whose modules live elsewhere.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ReaError, throwIfAborted } from '@rea/evidence';
import { packageFile } from '@rea/provider-kit';
import type { IntegrityPolicy } from '@rea/artifact';
import { assembleApplication } from '../analysis/analyze.js';
import type { AnalyzeOutcome, Prelude } from '../analysis/analyze.js';
import { Collector } from '../analysis/collector.js';
import { keepFinished, scriptAt } from '../analysis/hardBound.js';
import type { HardBound } from '../analysis/hardBound.js';
import type { WorkerMessage, WorkerRequest } from './messages.js';

import { DEFAULT_MAX_DURATION_MS, DEFAULT_MAX_HEAP_MB } from '../limits.js';

export { DEFAULT_MAX_DURATION_MS, DEFAULT_MAX_HEAP_MB };

/** Options of {@link analyzeInWorker}. */
export interface WorkerAnalysisOptions {
  integrityPolicy: IntegrityPolicy;
  signal: AbortSignal;
  onProgress: (message: string, phase: string) => void;
  /** Old-generation heap limit of the worker, in MiB. */
  maxHeapMb?: number;
  /** Time the analysis may take, from the worker's start, in ms. */
  maxDurationMs?: number;
  /** Called with the worker once it is started (tests observe its exit). */
  onWorker?: (worker: Worker) => void;
}

type Settled = { ok: true } | { ok: false; error: ReaError; hard: HardBound | null };

/** The built worker module, found through this package's manifest. */
export function workerModulePath(): string {
  const path = packageFile(import.meta.url, '@rea/javascript', 'dist/worker/entry.js');
  if (path === null) {
    const root = packageFile(import.meta.url, '@rea/javascript', '.');
    const missing = root === null ? 'dist/worker/entry.js' : join(root, 'dist', 'worker', 'entry.js');
    throw new ReaError('capability_unavailable', `The analysis worker module ${missing} is missing.`, {
      details: { capability: 'javascript-application-analysis', reason: 'worker-module-missing', path: missing },
      remediation: 'Reinstall @rea/javascript (or build it in a workspace) so that its dist/ is complete.',
    });
  }
  return path;
}

/**
 * Analyzes `path` in a worker thread with a heap limit and a deadline. The worker reads and parses and
 * hands over each script's record as soon as it is done; this thread assembles the result. Resolves to
 * the outcome; rejects with the analysis's own ReaError, `cancelled` when `signal` aborts, and
 * `resource_constraint` (`details.resource` "memory" at the heap limit, "cpu" at the deadline;
 * `details.completed_phases`, `details.phase`, `details.last_progress` and, in the parse, `details.file`
 * say how far it got) when no script was parsed. Coming close to either bound ends the parse early, and
 * reaching one in the middle of the parse (one script exhausting the heap) keeps every script finished
 * before it: the outcome is partial, the script it was on is named, the rest are per-file unknowns.
 * Settles only once the worker has exited, so no analysis outlives the call.
 */
export async function analyzeInWorker(path: string, options: WorkerAnalysisOptions): Promise<AnalyzeOutcome> {
  throwIfAborted(options.signal, 'analysis');
  const maxHeapMb = options.maxHeapMb ?? DEFAULT_MAX_HEAP_MB;
  const maxDurationMs = options.maxDurationMs ?? DEFAULT_MAX_DURATION_MS;
  const request: WorkerRequest = {
    path,
    integrityPolicy: options.integrityPolicy,
    maxHeapMb,
    deadline: Date.now() + maxDurationMs,
  };
  const worker = new Worker(workerModulePath(), {
    workerData: request,
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb },
    stdout: true,
    stderr: true,
  });
  options.onWorker?.(worker);
  const phases: string[] = [];
  let lastProgress: string | null = null;
  const collector = new Collector();
  let prelude: Prelude | null = null;
  const current = () => (prelude === null ? null : scriptAt(collector, prelude));
  const progress = () => {
    const file = phases.at(-1) === 'parse' ? current() : null;
    return {
      completed_phases: phases.slice(0, -1),
      phase: phases.at(-1) ?? null,
      last_progress: lastProgress,
      ...(file === null ? {} : { file: file.path }),
    };
  };
  const state: { settled: Settled | null } = { settled: null };
  const settle = (value: Settled) => {
    if (state.settled !== null) return;
    state.settled = value;
    void worker.terminate();
  };
  const fail = (error: ReaError, hard: HardBound | null = null) => settle({ ok: false, error, hard });

  const onAbort = () => fail(new ReaError('cancelled', 'The analysis was cancelled.', { details: progress() }));
  options.signal.addEventListener('abort', onAbort, { once: true });
  const remediation = (setting: string) =>
    `Raise ${setting}, or analyze a smaller part of the application (one directory or archive).`;
  const deadline = setTimeout(
    () =>
      fail(
        new ReaError('resource_constraint', `The analysis did not finish within ${maxDurationMs} ms.`, {
          details: { resource: 'cpu', limit_ms: maxDurationMs, ...progress() },
          remediation: remediation('max_duration_ms'),
        }),
        { resource: 'cpu', what: `reached its ${maxDurationMs} ms deadline`, setting: 'max_duration_ms' },
      ),
    maxDurationMs,
  );
  // Observations are kept even after a hard bound: the worker's last messages may arrive after the
  // error that ended it (they are all delivered before its exit).
  worker.on('message', (text: string) => {
    const message = JSON.parse(text) as WorkerMessage;
    switch (message.type) {
      case 'progress':
        if (phases.at(-1) !== message.phase) phases.push(message.phase);
        lastProgress = message.message;
        if (state.settled === null) options.onProgress(message.message, message.phase);
        return;
      case 'prelude':
        prelude = message.prelude;
        return;
      case 'phase':
        return collector.phase(message.phase, message.reasons);
      case 'unknown':
        return collector.unknown(message.scope, message.kind, message.message);
      case 'file':
        return collector.file(message.record);
      case 'gathered':
        return settle({ ok: true });
      case 'failure': {
        if (state.settled !== null) return;
        const { code, message: text, remediation: fix, retryable } = message;
        const limit =
          code !== 'resource_constraint'
            ? {}
            : message.details['resource'] === 'memory'
              ? { limit_mb: maxHeapMb }
              : { limit_ms: maxDurationMs };
        const details =
          code === 'resource_constraint' ? { ...message.details, ...limit, ...progress() } : message.details;
        return fail(new ReaError(code, text, { remediation: fix, retryable, details }));
      }
    }
  });
  worker.on('error', (error: Error & { code?: string }) => {
    if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      fail(
        new ReaError('resource_constraint', `The analysis reached its ${maxHeapMb} MiB heap limit.`, {
          details: { resource: 'memory', limit_mb: maxHeapMb, ...progress() },
          remediation: remediation('max_heap_mb'),
        }),
        { resource: 'memory', what: `exhausted its ${maxHeapMb} MiB heap limit`, setting: 'max_heap_mb' },
      );
    } else {
      fail(
        new ReaError('internal', `The analysis worker failed: ${error.message}`, {
          details: { reason: 'worker-failed', ...progress() },
        }),
      );
    }
  });
  // Drain the worker's output; nothing it writes reaches the server's stdout (the MCP stream).
  worker.stdout.resume();
  worker.stderr.resume();
  await new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  clearTimeout(deadline);
  options.signal.removeEventListener('abort', onAbort);
  const result = state.settled;
  if (result === null) {
    throw new ReaError('internal', 'The analysis worker exited without a result.', {
      details: { reason: 'worker-exited', ...progress() },
    });
  }
  const assemble = (p: Prelude) =>
    assembleApplication(collector, p, { signal: options.signal, onProgress: options.onProgress });
  if (result.ok && prelude !== null) return assemble(prelude);
  if (result.ok)
    throw new ReaError('internal', 'The analysis worker ended without its inventory.', { details: progress() });
  // A hard bound in the middle of the parse keeps the scripts finished before it.
  if (result.hard === null || prelude === null) throw result.error;
  const file = current();
  if (keepFinished(collector, prelude, result.hard)) return assemble(prelude);
  const { code, message, remediation: fix, details } = result.error;
  throw new ReaError(code, message, {
    remediation: fix,
    details: { ...details, ...(file ? { file: file.path } : {}) },
  });
}

// Runs one analysis in a worker thread this call owns, bounded by a heap limit and a deadline. The
// worker's module is found by this package's name, so it is found whether the caller runs from the
// installed package or from a bundle (rea's command line) whose modules live elsewhere.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { IntegrityPolicy } from '@rea/artifact';
import type { AnalyzeOutcome } from '../analysis/analyze.js';
import type { WorkerMessage, WorkerRequest } from './messages.js';

/** Default heap limit of an analysis worker, in MiB. */
export const DEFAULT_MAX_HEAP_MB = 2048;
/** Default deadline of an analysis, in ms (ten minutes). */
export const DEFAULT_MAX_DURATION_MS = 600_000;

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

type Settled = { ok: true; outcome: AnalyzeOutcome } | { ok: false; error: ReaError };

/** The built worker module, found through this package's manifest. */
export function workerModulePath(): string {
  const manifest = createRequire(import.meta.url).resolve('@rea/javascript/package.json');
  const path = join(dirname(manifest), 'dist', 'worker', 'entry.js');
  if (!existsSync(path)) {
    throw new ReaError('capability_unavailable', `The analysis worker module ${path} is missing.`, {
      details: { capability: 'javascript-application-analysis', reason: 'worker-module-missing', path },
      remediation: 'Reinstall @rea/javascript (or build it in a workspace) so that its dist/ is complete.',
    });
  }
  return path;
}

/**
 * Analyzes `path` in a worker thread with a heap limit and a deadline. Resolves to the outcome; rejects
 * with the analysis's own ReaError, `cancelled` when `signal` aborts, and `resource_constraint`
 * (`details.resource` "memory" at the heap limit, "cpu" at the deadline; `details.completed_phases`,
 * `details.phase` and `details.last_progress` say how far it got) when no script was parsed. Once some
 * scripts are parsed, coming close to either bound ends the parse early: the outcome is partial, the
 * rest are per-file unknowns. Settles only once the worker has exited, so no analysis outlives the call.
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
  const progress = () => ({
    completed_phases: phases.slice(0, -1),
    phase: phases.at(-1) ?? null,
    last_progress: lastProgress,
  });
  const state: { settled: Settled | null } = { settled: null };
  const settle = (value: Settled) => {
    if (state.settled !== null) return;
    state.settled = value;
    void worker.terminate();
  };
  const fail = (error: ReaError) => settle({ ok: false, error });

  const onAbort = () => fail(new ReaError('cancelled', 'The analysis was cancelled.', { details: progress() }));
  options.signal.addEventListener('abort', onAbort, { once: true });
  const deadline = setTimeout(
    () =>
      fail(
        new ReaError('resource_constraint', `The analysis did not finish within ${maxDurationMs} ms.`, {
          details: { resource: 'cpu', limit_ms: maxDurationMs, ...progress() },
          remediation:
            'Raise max_duration_ms, or analyze a smaller part of the application (one directory or archive).',
        }),
      ),
    maxDurationMs,
  );
  worker.on('message', (text: string) => {
    const message = JSON.parse(text) as WorkerMessage;
    if (message.type === 'progress') {
      if (phases.at(-1) !== message.phase) phases.push(message.phase);
      lastProgress = message.message;
      if (state.settled === null) options.onProgress(message.message, message.phase);
    } else if (message.type === 'outcome') {
      settle({ ok: true, outcome: message.outcome });
    } else {
      const { code, message: text, remediation, retryable } = message;
      const limit =
        code !== 'resource_constraint'
          ? {}
          : message.details['resource'] === 'memory'
            ? { limit_mb: maxHeapMb }
            : { limit_ms: maxDurationMs };
      const details =
        code === 'resource_constraint' ? { ...message.details, ...limit, ...progress() } : message.details;
      fail(new ReaError(code, text, { remediation, retryable, details }));
    }
  });
  worker.on('error', (error: Error & { code?: string }) => {
    if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      fail(
        new ReaError('resource_constraint', `The analysis reached its ${maxHeapMb} MiB heap limit.`, {
          details: { resource: 'memory', limit_mb: maxHeapMb, ...progress() },
          remediation: 'Raise max_heap_mb, or analyze a smaller part of the application (one directory or archive).',
        }),
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
  if (!result.ok) throw result.error;
  return result.outcome;
}

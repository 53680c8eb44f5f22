// The analysis runs in a worker this call owns (the built dist/worker/entry.js, found by package name):
// a heap limit and a deadline end it as resource_constraint, cancellation ends the worker.
import { describe, expect, it } from '@jest/globals';
import type { Worker } from 'node:worker_threads';
import { createSessionLedger, isReaError } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { LedgerAccess } from '@rea/provider-kit';
import { analyzeJavascriptApplicationTool } from '@rea/javascript';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { analyzeInWorker } from '../src/worker/owner.js';
import { bigApplication, electronApp } from './helpers/fixtures.js';

const failure = (promise: Promise<unknown>) => promise.then(() => null).catch((e: unknown) => e);

describe('analyze_javascript_application in an owned worker', () => {
  it('should end as resource_constraint (memory) at the heap limit, with the phases it completed', async () => {
    await withTempDir(async (tmp) => {
      const ledger = createSessionLedger();
      const error = await failure(
        executeTool(
          analyzeJavascriptApplicationTool,
          { path: bigApplication(tmp, 400_000), detail: 'summary', max_heap_mb: 32 },
          quietToolContext({ ledger: ledger as unknown as LedgerAccess }),
        ),
      );
      expect(isReaError(error) && [error.code, error.details['resource'], error.details['limit_mb']]).toEqual([
        'resource_constraint',
        'memory',
        32,
      ]);
      expect(isReaError(error) && error.details['completed_phases']).toEqual(['read', 'inventory']);
      expect(isReaError(error) && error.details['phase']).toBe('parse');
      expect(ledger.size).toBe(0);
      // This process lives on, and the same call with the default limit completes.
      const record = await executeTool(
        analyzeJavascriptApplicationTool,
        { path: electronApp(tmp) },
        quietToolContext(),
      );
      expect(record.kind).toBe('evidence');
    });
  });

  it('should end as resource_constraint (cpu) at the deadline', async () => {
    await withTempDir(async (tmp) => {
      const error = await failure(
        executeTool(
          analyzeJavascriptApplicationTool,
          { path: bigApplication(tmp, 100_000), max_duration_ms: 1 },
          quietToolContext(),
        ),
      );
      expect(isReaError(error) && [error.code, error.details['resource'], error.details['limit_ms']]).toEqual([
        'resource_constraint',
        'cpu',
        1,
      ]);
    });
  });

  it('should end the worker when cancelled mid-run and settle only once it has exited', async () => {
    await withTempDir(async (tmp) => {
      const controller = new AbortController();
      let exited: number | null = null;
      let started: Worker | null = null;
      const error = await failure(
        analyzeInWorker(bigApplication(tmp, 100_000), {
          integrityPolicy: 'fail-closed',
          signal: controller.signal,
          onProgress: (_message, phase) => {
            if (phase === 'parse') controller.abort();
          },
          onWorker: (worker) => {
            started = worker;
            worker.once('exit', (code) => (exited = code));
          },
        }),
      );
      expect(isReaError(error) && [error.code, error.details['phase']]).toEqual(['cancelled', 'parse']);
      expect(started).not.toBeNull();
      // Settled after the worker's exit: terminated threads exit with code 1.
      expect(exited).toBe(1);
    });
  });
});

// The module an analysis worker runs (see owner.ts): reads and parses workerData.path and posts every
// observation as soon as it is made (see messages.ts), then `gathered` or the failure; the owner
// assembles the result. The owner ends the thread on cancellation, at the deadline and when the heap
// limit is reached; nothing here outlives the message it posts last. Before those hard bounds, the
// analysis stops parsing when it comes close to either (see SOFT_HEAP_SHARE) and keeps what it finished.
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { normalizeError } from '@rea/evidence';
import { gatherApplication } from '../analysis/analyze.js';
import type { ResourceBound, Sink } from '../analysis/analyze.js';
import type { WorkerMessage, WorkerRequest } from './messages.js';

const port = parentPort;
if (port === null) throw new Error('@rea/javascript: the analysis worker runs only as a worker thread.');
const request = workerData as WorkerRequest;
// Messages travel as JSON text: the receiver parses them into plain objects of its own realm.
const post = (message: WorkerMessage) => port.postMessage(JSON.stringify(message));

/** Share of the heap limit past which no further script is parsed (the rest is the assembly's room). */
const SOFT_HEAP_SHARE = 0.6;
/** Share of the time left at the start past which no further script is parsed. */
const SOFT_TIME_SHARE = 0.75;
const started = Date.now();
const softDeadline = started + (request.deadline - started) * SOFT_TIME_SHARE;

function bound(): ResourceBound | null {
  if (getHeapStatistics().used_heap_size > request.maxHeapMb * SOFT_HEAP_SHARE * 1024 * 1024) {
    return { resource: 'memory', reached: `its ${request.maxHeapMb} MiB heap limit`, setting: 'max_heap_mb' };
  }
  if (Date.now() > softDeadline) return { resource: 'cpu', reached: 'its deadline', setting: 'max_duration_ms' };
  return null;
}

const sink: Sink = {
  phase: (phase, reasons) => post({ type: 'phase', phase, reasons }),
  unknown: (scope, kind, message) => post({ type: 'unknown', scope, kind, message }),
  file: (record) => post({ type: 'file', record }),
};

try {
  await gatherApplication(
    request.path,
    {
      integrityPolicy: request.integrityPolicy,
      onProgress: (message, phase) => post({ type: 'progress', message, phase }),
      onPrelude: (prelude) => post({ type: 'prelude', prelude }),
      bound,
    },
    sink,
  );
  post({ type: 'gathered' });
} catch (error) {
  const failure = normalizeError(error, 'analyze_javascript_application');
  post({
    type: 'failure',
    code: failure.code,
    message: failure.message,
    remediation: failure.remediation,
    retryable: failure.retryable,
    details: failure.details,
  });
}

// The module an analysis worker runs (see owner.ts): analyzes workerData.path, posts progress while it
// runs, then the outcome or the failure. The owner ends the thread on cancellation, at the deadline and
// when the heap limit is reached; nothing here outlives the message it posts last.
import { parentPort, workerData } from 'node:worker_threads';
import { normalizeError } from '@rea/evidence';
import { analyzeApplication } from '../analysis/analyze.js';
import type { WorkerMessage, WorkerRequest } from './messages.js';

const port = parentPort;
if (port === null) throw new Error('@rea/javascript: the analysis worker runs only as a worker thread.');
const request = workerData as WorkerRequest;
// Messages travel as JSON text: the receiver parses them into plain objects of its own realm.
const post = (message: WorkerMessage) => port.postMessage(JSON.stringify(message));

try {
  const outcome = await analyzeApplication(request.path, {
    integrityPolicy: request.integrityPolicy,
    onProgress: (message, phase) => post({ type: 'progress', message, phase }),
  });
  post({ type: 'outcome', outcome });
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

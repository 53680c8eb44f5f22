import type { ErrorCode, JsonObject } from '@rea/evidence';
import type { IntegrityPolicy } from '@rea/artifact';
import type { AnalyzeOutcome } from '../analysis/analyze.js';

/** What an analysis worker is started with (its `workerData`). */
export interface WorkerRequest {
  path: string;
  integrityPolicy: IntegrityPolicy;
  /** The worker's heap limit, in MiB. */
  maxHeapMb: number;
  /** When the analysis must be over (ms since the epoch). */
  deadline: number;
}

/**
 * What an analysis worker posts, as JSON text: progress while it runs, then its outcome or its failure.
 */
export type WorkerMessage =
  | { type: 'progress'; message: string; phase: string }
  | { type: 'outcome'; outcome: AnalyzeOutcome }
  | {
      type: 'failure';
      code: ErrorCode;
      message: string;
      remediation: string;
      retryable: boolean;
      details: JsonObject;
    };

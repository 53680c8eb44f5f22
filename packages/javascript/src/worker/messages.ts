import type { ErrorCode, JsonObject } from '@rea/evidence';
import type { IntegrityPolicy } from '@rea/artifact';
import type { AnalyzeOutcome } from '../analysis/analyze.js';

/** What an analysis worker is started with (its `workerData`). */
export interface WorkerRequest {
  path: string;
  integrityPolicy: IntegrityPolicy;
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

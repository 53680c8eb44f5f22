import type { ErrorCode, JsonObject } from '@rea/evidence';
import type { IntegrityPolicy } from '@rea/artifact';
import type { Prelude, Sink } from '../analysis/analyze.js';
import type { FileRecord } from '../analysis/fileRecord.js';

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
 * What an analysis worker posts, as JSON text, in order: progress while it runs; the prelude once the
 * inventory is done; every observation of the read and parse phases as it is made (phase coverage,
 * unknowns, one record per script); then `gathered` or a failure. The owner assembles the result from
 * them, so a worker that dies mid-parse still leaves every script it finished.
 */
export type WorkerMessage =
  | { type: 'progress'; message: string; phase: string }
  | { type: 'prelude'; prelude: Prelude }
  | { type: 'phase'; phase: Parameters<Sink['phase']>[0]; reasons: string[] }
  | { type: 'unknown'; scope: string; kind: string; message: string }
  | { type: 'file'; record: FileRecord }
  | { type: 'gathered' }
  | {
      type: 'failure';
      code: ErrorCode;
      message: string;
      remediation: string;
      retryable: boolean;
      details: JsonObject;
    };

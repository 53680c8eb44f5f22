// Reads, inflates and hashes the small entries of a large ZIP on worker threads, one per core (at
// most two), ahead of the inventory walk that consumes the results in order. The walk's own thread
// only parses the directory and keeps the books, so inflating and hashing use every core and the
// event loop stays free.
import { close, existsSync, fstat, open } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DigestBatch, DigestReply, DigestResult, DigestTask } from './digestMessages.js';

/** Compressed bytes one batch covers (more when a single entry is larger). */
const BATCH_BYTES = 1 << 20;
/** Entries one batch covers at most. */
const BATCH_ENTRIES = 256;
/** Batches handed out and not yet consumed, per worker: bounds the results held. */
const AHEAD_PER_WORKER = 8;

/** The built worker module, found through this package's manifest (also from a bundle), or null. */
function workerModule(): string | null {
  try {
    const manifest = createRequire(import.meta.url).resolve('@rea/artifact/package.json');
    const path = join(dirname(manifest), 'dist', 'engine', 'digestWorker.js');
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

type Results = Array<DigestResult | { index: number }>;

/**
 * Digests of the tasks of one inventory walk, computed ahead on worker threads. Results are kept per
 * batch; the walk waits, at most once per batch, for the batch that holds its next entry.
 */
export class DigestPool {
  private readonly batches: DigestTask[][] = [];
  /** The batch of each walk position not yet taken, or -1. */
  private readonly batchOf: Int32Array;
  private readonly replies: Array<Results | undefined> = [];
  /** Where the walk's last look-up stopped in each batch's results (both are in walk order). */
  private readonly cursors: number[] = [];
  private readonly waiting = new Map<number, Array<() => void>>();
  private dispatched = 0;
  /** Batches before this one have been passed by the walk and released. */
  private consumed = 0;
  private whole: ((sha256: string | null) => void) | null = null;
  private closed = false;

  private constructor(
    private readonly workers: Worker[],
    private readonly fd: number,
    tasks: readonly DigestTask[],
  ) {
    this.batchOf = new Int32Array(tasks.length > 0 ? tasks[tasks.length - 1]!.index + 1 : 0).fill(-1);
    let current: DigestTask[] = [];
    let bytes = 0;
    for (const task of tasks) {
      if (current.length >= BATCH_ENTRIES || (current.length > 0 && bytes + task.compressedSize > BATCH_BYTES)) {
        this.batches.push(current);
        current = [];
        bytes = 0;
      }
      current.push(task);
      bytes += task.compressedSize;
      this.batchOf[task.index] = this.batches.length;
    }
    if (current.length > 0) this.batches.push(current);
    workers.forEach((worker) => {
      worker.on('message', (reply: DigestReply) => this.receive(reply));
      // A worker that fails leaves its entries to the walk's own reader.
      worker.on('error', () => this.abandon());
    });
    for (let i = 0; i < workers.length * AHEAD_PER_WORKER; i += 1) this.dispatch();
  }

  /**
   * Starts workers for `tasks` (in walk order) over the file at `path`, or resolves to null when no
   * worker module is available (the walk then reads every entry itself).
   */
  static async start(path: string, tasks: readonly DigestTask[]): Promise<DigestPool | null> {
    const module = workerModule();
    if (module === null || tasks.length === 0) return null;
    const { fd, size } = await new Promise<{ fd: number; size: number }>((resolve, reject) =>
      open(path, 'r', (error, fd) => {
        if (error) return reject(error);
        fstat(fd, (statError, stats) => {
          if (statError) return close(fd, () => reject(statError));
          resolve({ fd, size: stats.size });
        });
      }),
    );
    const count = Math.max(1, Math.min(2, availableParallelism()));
    const workers = Array.from(
      { length: count },
      () =>
        new Worker(module, {
          workerData: { fd, fileSize: size },
          resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 2 },
        }),
    );
    // The descriptor is closed by close(), once the workers are gone.
    return new DigestPool(workers, fd, tasks);
  }

  private dispatch(): void {
    if (this.closed || this.dispatched >= this.batches.length) return;
    const batch: DigestBatch = { batch: this.dispatched, tasks: this.batches[this.dispatched]! };
    this.workers[this.dispatched % this.workers.length]!.postMessage(batch);
    this.dispatched += 1;
  }

  private receive(reply: DigestReply): void {
    if ('whole' in reply) {
      this.whole?.(reply.whole);
      this.whole = null;
      return;
    }
    // A batch the walk has passed is dropped with its bytes.
    if (this.closed || reply.batch < this.consumed) return;
    this.replies[reply.batch] = reply.results;
    const waiters = this.waiting.get(reply.batch);
    this.waiting.delete(reply.batch);
    waiters?.forEach((wake) => wake());
  }

  /** Every pending and future take answers null: the walk reads those entries itself. */
  private abandon(): void {
    this.closed = true;
    this.whole?.(null);
    this.whole = null;
    this.replies.length = 0;
    const waiters = [...this.waiting.values()].flat();
    this.waiting.clear();
    waiters.forEach((wake) => wake());
  }

  /** The result for walk position `index` in a batch's results, or null when the worker left it. */
  private find(batch: number, index: number): DigestResult | null {
    const results = this.closed ? undefined : this.replies[batch];
    if (results === undefined) return null;
    let at = this.cursors[batch] ?? 0;
    while (at < results.length && results[at]!.index < index) at += 1;
    this.cursors[batch] = at;
    const result = results[at];
    return result !== undefined && result.index === index && 'sha256' in result ? result : null;
  }

  /**
   * The digest of the entry at walk position `index` (a promise while its batch is still being
   * worked on): null when the worker did not handle it (the walk then reads it itself), undefined
   * when it was never a task. Positions are taken in walk order; each is taken once.
   */
  take(index: number): DigestResult | null | Promise<DigestResult | null> | undefined {
    const batch = index < this.batchOf.length ? this.batchOf[index]! : -1;
    if (batch < 0) return undefined;
    this.batchOf[index] = -1;
    // Batches are consumed in order; each one passed is released and lets another be handed out.
    while (this.consumed < batch) {
      this.replies[this.consumed] = undefined;
      this.consumed += 1;
      this.dispatch();
    }
    if (this.closed || this.replies[batch] !== undefined) return this.find(batch, index);
    return new Promise((resolve) => {
      const waiters = this.waiting.get(batch) ?? [];
      waiters.push(() => resolve(this.find(batch, index)));
      this.waiting.set(batch, waiters);
    });
  }

  /**
   * The SHA-256 of the whole file, computed by the last worker between its batches; null when the
   * pool was closed first.
   */
  wholeFileSha256(): Promise<string | null> {
    if (this.closed) return Promise.resolve(null);
    const promise = new Promise<string | null>((resolve) => (this.whole = resolve));
    const message: DigestBatch = { whole: true };
    this.workers[this.workers.length - 1]!.postMessage(message);
    return promise;
  }

  /** Stops the workers and closes the file; pending takes answer null. */
  async close(): Promise<void> {
    this.abandon();
    await Promise.all(this.workers.map((worker) => worker.terminate()));
    await new Promise<void>((resolve) => close(this.fd, () => resolve()));
  }
}

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

type Settle = {
  resolve: (result: DigestResult | null) => void;
  promise: Promise<DigestResult | null>;
  taken: boolean;
  settled: boolean;
};

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

/** Digests of the tasks of one inventory walk, computed ahead on worker threads. */
export class DigestPool {
  private readonly batches: DigestTask[][] = [];
  private readonly batchOf = new Map<number, number>();
  private readonly settles = new Map<number, Settle>();
  private readonly left: number[];
  private dispatched = 0;
  private whole: ((sha256: string | null) => void) | null = null;
  private consumed = 0;
  private closed = false;

  private constructor(
    private readonly workers: Worker[],
    private readonly fd: number,
    tasks: readonly DigestTask[],
  ) {
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
      this.batchOf.set(task.index, this.batches.length);
    }
    if (current.length > 0) this.batches.push(current);
    this.left = this.batches.map((batch) => batch.length);
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

  private settle(index: number): Settle {
    let entry = this.settles.get(index);
    if (entry === undefined) {
      let resolve!: (result: DigestResult | null) => void;
      const promise = new Promise<DigestResult | null>((r) => (resolve = r));
      const created: Settle = {
        promise,
        taken: false,
        settled: false,
        resolve: (result) => {
          created.settled = true;
          resolve(result);
          if (created.taken) this.settles.delete(index);
        },
      };
      entry = created;
      this.settles.set(index, entry);
    }
    return entry;
  }

  private receive(reply: DigestReply): void {
    if ('whole' in reply) {
      this.whole?.(reply.whole);
      this.whole = null;
      return;
    }
    for (const result of reply.results) {
      // An entry the walk passed without taking is dropped with its bytes.
      if (!this.batchOf.has(result.index) && !this.settles.has(result.index)) continue;
      this.settle(result.index).resolve('sha256' in result ? result : null);
    }
  }

  /** Every pending and future take answers null: the walk reads those entries itself. */
  private abandon(): void {
    this.closed = true;
    this.whole?.(null);
    this.whole = null;
    for (const entry of [...this.settles.values()]) entry.resolve(null);
    this.settles.clear();
  }

  /**
   * The digest of the entry at walk position `index`: null when the worker did not handle it (the
   * walk then reads it itself), undefined when it was never a task.
   */
  take(index: number): Promise<DigestResult | null> | undefined {
    const batch = this.batchOf.get(index);
    if (batch === undefined) return undefined;
    const entry = this.settle(index);
    entry.taken = true;
    this.batchOf.delete(index);
    if (entry.settled) this.settles.delete(index);
    if (this.closed) entry.resolve(null);
    this.left[batch] = this.left[batch]! - 1;
    // Batches are consumed in order; each one finished (or passed) lets another be handed out.
    while (this.consumed < this.batches.length && (this.left[this.consumed] === 0 || this.consumed < batch)) {
      if (this.left[this.consumed] !== 0) this.release(this.consumed);
      this.consumed += 1;
      this.dispatch();
    }
    return entry.promise;
  }

  /** Forgets the results of a batch's entries the walk passed without taking. */
  private release(batch: number): void {
    for (const task of this.batches[batch]!) {
      if (!this.batchOf.delete(task.index)) continue;
      this.settles.delete(task.index);
    }
    this.left[batch] = 0;
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

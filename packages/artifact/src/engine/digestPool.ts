// Reads, inflates and hashes the entries of a large ZIP ahead of the inventory walk that consumes the
// results in order: on worker threads (one per core beyond the first, at most two) and, while the
// walk would otherwise wait for them, on the walk's own thread a batch at a time, so every core
// inflates and hashes while only one worker pays for its start.
import { close, fstat, open } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { packageFile } from '@rea/provider-kit';
import { spanOfFile } from './zipSpan.js';
import { batchDigester, isLarge } from './batchDigest.js';
import type { DigestedBatch } from './batchDigest.js';
import {
  RECORD_BYTES,
  RECORD_CRC32,
  RECORD_HANDLED,
  RECORD_HEAD,
  RECORD_HEAD_LENGTH,
  RECORD_SHA256,
  packTasks,
} from './digestMessages.js';
import type { DigestBatch, DigestReply, DigestResult, DigestTask } from './digestMessages.js';

/** Compressed bytes one batch covers (more when a single entry is larger). */
const BATCH_BYTES = 1 << 20;
/** Entries one batch covers at most. */
const BATCH_ENTRIES = 256;
/** Batches handed out and not yet consumed, in all: bounds the results held. */
const AHEAD = 24;
/** Batches queued at one worker at most (one at work, one waiting): the next goes to whichever is free. */
const QUEUED_PER_WORKER = 2;

/** The built worker module, found through this package's manifest (also from a bundle), or null. */
function workerModule(): string | null {
  return packageFile(import.meta.url, '@rea/artifact', 'dist/engine/digestWorker.js');
}

/** One batch's results as received: its records, and the bytes kept by walk position. */
interface Results {
  records: Buffer;
  collected: Map<number, Uint8Array>;
}

/**
 * Digests of the tasks of one inventory walk, computed ahead on worker threads. Results are kept per
 * batch; the walk waits, at most once per batch, for the batch that holds its next entry.
 */
export class DigestPool {
  private readonly batches: DigestTask[][] = [];
  /** The batch of each walk position not yet taken, or -1. */
  private batchOf = new Int32Array(0);
  /** The place of each walk position within its batch. */
  private slotOf = new Int32Array(0);
  private readonly replies: Array<Results | undefined> = [];
  private readonly waiting = new Map<number, Array<() => void>>();
  private dispatched = 0;
  /** The batch being filled by {@link add}, its compressed bytes, and the tasks added in all. */
  private current: DigestTask[] = [];
  private currentBytes = 0;
  private count = 0;
  /** Batches handed to each worker and not yet answered. */
  private readonly queued: number[];
  /** Batches before this one have been passed by the walk and released. */
  private consumed = 0;
  private closed = false;
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly workers: Worker[],
    private readonly fd: number,
    private readonly local: (tasks: readonly DigestTask[]) => DigestedBatch,
  ) {
    this.queued = workers.map(() => 0);
    workers.forEach((worker, at) => {
      worker.on('message', (reply: DigestReply) => {
        this.queued[at] = this.queued[at]! - 1;
        this.receive(reply);
        this.dispatch();
      });
      // A worker that fails leaves its entries to the walk's own reader.
      worker.on('error', () => this.abandon());
    });
  }

  /**
   * Hands the workers more tasks (in walk order, after those already added): each batch goes out once
   * it is complete, as the window ahead of the walk allows.
   */
  add(tasks: readonly DigestTask[]): void {
    for (const task of tasks) {
      if (
        this.current.length >= BATCH_ENTRIES ||
        (this.current.length > 0 && this.currentBytes + task.compressedSize > BATCH_BYTES)
      ) {
        this.batches.push(this.current);
        this.current = [];
        this.currentBytes = 0;
      }
      this.place(task.index, this.batches.length, this.current.length);
      this.current.push(task);
      this.currentBytes += task.compressedSize;
      this.count += 1;
    }
    this.dispatch();
  }

  /** No more tasks: the last batch goes out as it is. */
  seal(): this {
    if (this.current.length > 0) this.batches.push(this.current);
    this.current = [];
    this.dispatch();
    return this;
  }

  /** Hands the workers all of `tasks` (in walk order) at once. */
  assign(tasks: readonly DigestTask[]): this {
    this.add(tasks);
    return this.seal();
  }

  /** How many tasks were added. */
  get size(): number {
    return this.count;
  }

  private place(index: number, batch: number, slot: number): void {
    if (index >= this.batchOf.length) {
      const length = Math.max(index + 1, 2 * this.batchOf.length, 1024);
      const batchOf = new Int32Array(length).fill(-1);
      batchOf.set(this.batchOf);
      const slotOf = new Int32Array(length);
      slotOf.set(this.slotOf);
      this.batchOf = batchOf;
      this.slotOf = slotOf;
    }
    this.batchOf[index] = batch;
    this.slotOf[index] = slot;
  }

  /**
   * Starts the workers over the file at `path` before their tasks are known (they start while the
   * central directory is read), or resolves to null when the file is smaller than `minimumSize` or
   * no worker module is available (the walk then reads every entry itself).
   */
  static async launch(path: string, minimumSize = 0): Promise<DigestPool | null> {
    const module = workerModule();
    if (module === null) return null;
    const { fd, size } = await new Promise<{ fd: number; size: number }>((resolve, reject) =>
      open(path, 'r', (error, fd) => {
        if (error) return reject(error);
        fstat(fd, (statError, stats) => {
          if (statError) return close(fd, () => reject(statError));
          resolve({ fd, size: stats.size });
        });
      }),
    );
    if (size < minimumSize) {
      await new Promise<void>((resolve) => close(fd, () => resolve()));
      return null;
    }
    // Entry data must end where the archive does: bytes appended after it are no entry's.
    const archiveEnd = spanOfFile(fd, size).end;
    const count = Math.max(1, Math.min(2, availableParallelism() - 1));
    const workers = Array.from(
      { length: count },
      () =>
        new Worker(module, {
          workerData: { fd, fileSize: archiveEnd },
          resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 2 },
        }),
    );
    // The descriptor is closed by close(), once the workers are gone.
    return new DigestPool(workers, fd, batchDigester(fd, archiveEnd));
  }

  /** Starts workers for `tasks` (in walk order) over the file at `path`; see {@link launch}. */
  static async start(path: string, tasks: readonly DigestTask[]): Promise<DigestPool | null> {
    if (tasks.length === 0) return null;
    return (await DigestPool.launch(path))?.assign(tasks) ?? null;
  }

  /**
   * Hands out the next batches, each to the worker with the fewest queued, while the window ahead of
   * the walk has room: a worker that falls behind (descheduled on a busy machine) holds up at most
   * the batches queued at it, and the other takes the rest.
   */
  private dispatch(): void {
    while (!this.closed && this.dispatched < this.batches.length && this.dispatched < this.consumed + AHEAD) {
      let at = 0;
      for (let i = 1; i < this.workers.length; i += 1) if (this.queued[i]! < this.queued[at]!) at = i;
      if (this.queued[at]! >= QUEUED_PER_WORKER) return;
      const batch: DigestBatch = { batch: this.dispatched, tasks: packTasks(this.batches[this.dispatched]!) };
      this.workers[at]!.postMessage(batch, [batch.tasks.buffer as ArrayBuffer]);
      this.queued[at] = this.queued[at]! + 1;
      this.dispatched += 1;
    }
  }

  private receive(reply: DigestReply): void {
    // A batch the walk has passed is dropped with its bytes.
    if (this.closed || reply.batch < this.consumed) return;
    this.replies[reply.batch] = {
      records: Buffer.from(reply.records),
      collected: new Map(reply.collected),
    };
    const waiters = this.waiting.get(reply.batch);
    this.waiting.delete(reply.batch);
    waiters?.forEach((wake) => wake());
  }

  /** Every pending and future take answers null: the walk reads those entries itself. */
  private abandon(): void {
    this.closed = true;
    this.replies.length = 0;
    const waiters = [...this.waiting.values()].flat();
    this.waiting.clear();
    waiters.forEach((wake) => wake());
  }

  /**
   * Digests the next batch not yet handed out on this thread (synchronously, a few milliseconds),
   * when it holds no large entry and the window ahead of the walk has room; false when there is no
   * such batch, and the caller waits for the workers (or does other work).
   */
  help(): boolean {
    if (this.closed || this.dispatched >= this.batches.length || this.dispatched >= this.consumed + AHEAD) return false;
    const tasks = this.batches[this.dispatched]!;
    if (tasks.some(isLarge)) return false;
    const batch = this.dispatched;
    this.dispatched += 1;
    try {
      const { records, collected } = this.local(tasks);
      this.receive({ batch, records: records.buffer as ArrayBuffer, collected });
    } catch {
      // A batch this thread could not read is left to the walk's own reader, with the rest.
      this.abandon();
    }
    return true;
  }

  /** The result for walk position `index` in a batch's results, or null when the worker left it. */
  private find(batch: number, index: number): DigestResult | null {
    const results = this.closed ? undefined : this.replies[batch];
    if (results === undefined) return null;
    const records = results.records;
    const at = this.slotOf[index]! * RECORD_BYTES;
    if (at + RECORD_BYTES > records.length || records[at + RECORD_HANDLED] !== 1) return null;
    return {
      index,
      sha256: records.toString('hex', at + RECORD_SHA256, at + RECORD_SHA256 + 32),
      crc32: records.readUInt32LE(at + RECORD_CRC32),
      head: records.subarray(at + RECORD_HEAD, at + RECORD_HEAD + records[at + RECORD_HEAD_LENGTH]!),
      collected: results.collected.get(index) ?? null,
    };
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
    }
    this.dispatch();
    if (this.closed || this.replies[batch] !== undefined) return this.find(batch, index);
    return new Promise((resolve) => {
      const waiters = this.waiting.get(batch) ?? [];
      waiters.push(() => resolve(this.find(batch, index)));
      this.waiting.set(batch, waiters);
    });
  }

  /** Stops the workers and closes the file, once (a second call waits for the first); pending takes answer null. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.abandon();
      await Promise.all(this.workers.map((worker) => worker.terminate()));
      await new Promise<void>((resolve) => close(this.fd, () => resolve()));
    })();
    return this.closing;
  }
}

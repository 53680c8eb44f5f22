// A long-lived thread for the whole-file digests of the packages a process reads (see ./digestWorker.ts).
// Hashing a 28 MB APK takes about 20 ms of CPU, as long as everything else a warm server does to
// inspect it: on the second core, it runs while the calling thread reads and decodes the entries.
//
// The thread costs a start (a new isolate: about 0.2 s of CPU and 8,000 page faults here) and memory, so
// it is started only once a process has hashed a second large file on its own thread (see
// {@link warmDigestThread}): a command line that reads one package never starts it (starting it there
// made `rea inspect-android-package` of a 28 MB APK 0.23 s slower), and a server's later calls find it
// running. It stops after a
// minute without work and never keeps the process alive by itself. Without the built worker module (a
// test run from source) or once the thread has failed, everything is hashed on the calling thread.
import { Worker } from 'node:worker_threads';
import { throwIfAborted } from '@rea/evidence';
import { packageFile } from '@rea/provider-kit';
import type { DigestRequest, FileDigests } from './digestCore.js';
import { CheckFailed } from './result.js';

/** Files smaller than this are hashed on the calling thread without starting the digest thread. */
export const WARM_FROM = 4 * 1024 * 1024;
/** The thread stops after this long without a job. */
const IDLE_MS = 60_000;

/** A job as posted to the thread: `stop` is a shared 4-byte flag set to stop it. */
export interface DigestJob {
  id: number;
  fd: number;
  request: DigestRequest;
  stop: SharedArrayBuffer;
}

/** The thread's answer to a job. */
export type DigestReply =
  | { id: number; sha256: string | null; chunked: [string, Uint8Array][]; crc32: number | null }
  | { id: number; kind: 'short' | 'stopped' | 'failed'; message: string };

interface Thread {
  worker: Worker;
  online: boolean;
  pending: Map<number, (reply: DigestReply | null) => void>;
  idle: NodeJS.Timeout | null;
}

let thread: Thread | null = null;
let failed = false;
let nextId = 1;

/** The built worker module, found through this package's manifest (also from a bundle), or null. */
function workerModule(): string | null {
  return packageFile(import.meta.url, '@rea/provider-android', 'dist/signing/digestWorker.js');
}

/** Stops `t` once it has had no job for {@link IDLE_MS}. */
function idleLater(t: Thread): void {
  if (t.idle !== null) clearTimeout(t.idle);
  t.idle = setTimeout(() => void t.worker.terminate(), IDLE_MS);
  t.idle.unref();
}

/** Large files this process has hashed on its own thread. */
let hashedHere = 0;

/**
 * Notes that the calling thread hashed a large file itself; the second one starts the digest thread
 * (see {@link startDigestThread}).
 */
export function warmDigestThread(): void {
  hashedHere += 1;
  if (hashedHere >= 2) startDigestThread();
}

/**
 * Starts the digest thread if it is not running (nothing happens without the built worker module, or
 * once it has failed). It serves {@link digestOffThread} once it is online.
 */
export function startDigestThread(): void {
  if (thread !== null || failed) return;
  const module = workerModule();
  if (module === null) {
    failed = true;
    return;
  }
  const worker = new Worker(module, { resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 } });
  const t: Thread = { worker, online: false, pending: new Map(), idle: null };
  thread = t;
  worker.once('online', () => {
    t.online = true;
    idleLater(t);
  });
  worker.on('message', (reply: DigestReply) => {
    const settle = t.pending.get(reply.id);
    t.pending.delete(reply.id);
    if (t.pending.size === 0) {
      worker.unref();
      idleLater(t);
    }
    settle?.(reply);
  });
  const gone = (error: Error | null): void => {
    if (thread === t) thread = null;
    // A thread that failed is not started again: the process hashes on its own thread from then on.
    if (error !== null) failed = true;
    if (t.idle !== null) clearTimeout(t.idle);
    for (const settle of t.pending.values()) settle(null);
    t.pending.clear();
  };
  worker.on('error', (error) => gone(error));
  worker.on('exit', () => gone(null));
  // Only now: a 'message' listener added after unref() would hold the process open again.
  worker.unref();
}

/** Whether the digest thread is online (then {@link digestOffThread} takes jobs). */
export function digestThreadOnline(): boolean {
  return thread?.online === true;
}

/**
 * Computes `request` over the open descriptor `fd` on the digest thread, or returns null when the thread
 * is not online (the caller hashes on its own thread). The promise settles only once the thread is done
 * with `fd`, so the caller may close it then. It resolves to null when the thread went away meanwhile,
 * and rejects with a {@link CheckFailed} when the file is shorter than the request says, with
 * `cancelled` when `signal` aborted, or with the read's error.
 */
export function digestOffThread(
  fd: number,
  request: DigestRequest,
  signal: AbortSignal | undefined,
): Promise<FileDigests | null> | null {
  const t = thread;
  if (t === null || !t.online) return null;
  throwIfAborted(signal, 'hashing');
  const id = nextId++;
  const stop = new SharedArrayBuffer(4);
  const flag = new Int32Array(stop);
  const abort = (): void => void Atomics.store(flag, 0, 1);
  return new Promise((resolve, reject) => {
    signal?.addEventListener('abort', abort, { once: true });
    t.pending.set(id, (reply) => {
      signal?.removeEventListener('abort', abort);
      if (reply === null) resolve(null);
      else if ('sha256' in reply)
        resolve({
          sha256: reply.sha256,
          chunked: new Map(reply.chunked.map(([hash, digest]) => [hash, Buffer.from(digest)])),
          crc32: reply.crc32,
        });
      else if (reply.kind === 'short') reject(new CheckFailed(reply.message));
      else if (reply.kind === 'stopped') {
        try {
          throwIfAborted(signal, 'hashing');
        } catch (error) {
          reject(error);
        }
        resolve(null);
      } else reject(new Error(reply.message));
    });
    if (t.idle !== null) clearTimeout(t.idle);
    t.idle = null;
    // A job in progress keeps the process alive until it is answered.
    t.worker.ref();
    t.worker.postMessage({ id, fd, request, stop } satisfies DigestJob);
  });
}

/** Stops the digest thread (tests; a process never needs to). */
export async function stopDigestThread(): Promise<void> {
  const t = thread;
  thread = null;
  if (t !== null) await t.worker.terminate();
}

// The SHA-256 of a whole file computed on a worker thread, so that the calling thread meanwhile does
// other work (an extraction names its output after the archive's digest, which it needs only at the
// end). Without the built worker module (a test run from source), the file is hashed here.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { ReaError, throwIfAborted } from '@rea/evidence';
import { packageFile } from '@rea/provider-kit';
import { digestStream } from '../hashing.js';

function workerModule(): string | null {
  return packageFile(import.meta.url, '@rea/artifact', 'dist/engine/fileHashWorker.js');
}

/**
 * The hex SHA-256 of the file at `path`. An aborted `signal` stops the worker and rejects with
 * `cancelled` (phase "hashing"); a read error rejects with it. The worker is gone, and the file
 * closed, before the promise settles.
 */
export async function fileSha256(path: string, signal: AbortSignal): Promise<string> {
  const module = workerModule();
  if (module === null)
    return (await digestStream(createReadStream(path, { highWaterMark: 1 << 20 }), { signal })).sha256;
  throwIfAborted(signal, 'hashing');
  const handle = await open(path, 'r');
  try {
    throwIfAborted(signal, 'hashing');
    const worker = new Worker(module, {
      workerData: { fd: handle.fd },
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1 },
    });
    const stop = (): void => void worker.terminate();
    signal.addEventListener('abort', stop, { once: true });
    try {
      const answer = await new Promise<{ sha256?: string; error?: string } | null>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.once('exit', () => resolve(null));
      });
      throwIfAborted(signal, 'hashing');
      if (answer?.sha256 !== undefined) return answer.sha256;
      throw new ReaError(
        'internal',
        `The SHA-256 of ${path} could not be computed: ${answer?.error ?? 'the worker stopped'}.`,
        {
          details: { path },
        },
      );
    } finally {
      signal.removeEventListener('abort', stop);
      // Gone before its descriptor is closed, however it ended.
      await worker.terminate();
    }
  } finally {
    await handle.close();
  }
}

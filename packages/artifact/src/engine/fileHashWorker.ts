// A worker thread that computes the SHA-256 of a whole file from a descriptor the owning thread opened
// (and closes once the worker is gone), answering once with the hex digest or the read's error.
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const CHUNK = 1 << 20;
const { fd } = workerData as { fd: number };
try {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (let position = 0; ;) {
    const read = readSync(fd, buffer, 0, CHUNK, position);
    if (read === 0) break;
    hash.update(buffer.subarray(0, read));
    position += read;
  }
  parentPort!.postMessage({ sha256: hash.digest('hex') });
} catch (error) {
  parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
}

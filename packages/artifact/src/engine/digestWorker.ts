// A worker thread that digests batches of ZIP entries (see batchDigest.ts) from a file descriptor the
// owning thread opened (and closes), answering each with one transferred buffer of records.
import { parentPort, workerData } from 'node:worker_threads';
import { batchDigester } from './batchDigest.js';
import { unpackTasks } from './digestMessages.js';
import type { DigestBatch, DigestReply } from './digestMessages.js';

const { fd, fileSize } = workerData as { fd: number; fileSize: number };
const digestBatch = batchDigester(fd, fileSize);

// Batches are answered in the order they arrive, one at a time.
parentPort!.on('message', (message: DigestBatch) => {
  const { records, collected } = digestBatch(unpackTasks(message.tasks));
  const reply: DigestReply = { batch: message.batch, records: records.buffer as ArrayBuffer, collected };
  parentPort!.postMessage(reply, [reply.records]);
});

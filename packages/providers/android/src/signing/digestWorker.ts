// The digest thread: computes the whole-file digests of an APK or DEX file (see ./digestCore.ts) from a
// descriptor the owning thread opened and keeps open until this thread has answered for it. Jobs run
// one at a time, in the order they came; each can be stopped between two reads through its shared flag.
import { parentPort } from 'node:worker_threads';
import { DigestStopped, digestFileSync } from './digestCore.js';
import type { DigestJob, DigestReply } from './digestThread.js';
import { CheckFailed } from './result.js';

parentPort!.on('message', (job: DigestJob) => {
  const stop = new Int32Array(job.stop);
  let reply: DigestReply;
  try {
    const out = digestFileSync(job.fd, job.request, () => Atomics.load(stop, 0) !== 0);
    reply = { id: job.id, sha256: out.sha256, chunked: [...out.chunked], crc32: out.crc32 };
  } catch (error) {
    const kind = error instanceof CheckFailed ? 'short' : error instanceof DigestStopped ? 'stopped' : 'failed';
    reply = { id: job.id, kind, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});

/**
 * The costly, all-at-once parts of loading the Capstone engine, done on a worker thread: compiling
 * capstone.wasm (the module is handed back to this thread, sharing its compiled code), and compiling
 * the emscripten glue's factory, handed back as a V8 code cache. On this thread each was one
 * uninterrupted stretch of tens of milliseconds (the factory, a function of some 300 kB, is compiled
 * whole when first called); with the cache, the glue is evaluated and its factory called without
 * compiling them again.
 */
import { Worker } from 'node:worker_threads';

/** What the glue is wrapped in to be evaluated, as CommonJS wraps a module (the same on both threads, or the cache is rejected). */
export const GLUE_PREFIX = '(function (exports, require, module, __filename, __dirname) {';
/** The end of {@link GLUE_PREFIX}'s wrapper. */
export const GLUE_SUFFIX = '\n})';

/** What the worker hands back. */
export interface PreparedEngine {
  /** The compiled capstone.wasm (a WebAssembly.Module). */
  module: object;
  /** A code cache of the wrapped glue, its factory compiled. */
  cache: Buffer;
}

// The worker evaluates the glue and calls its factory with an instantiation hook that never answers:
// the factory's body is compiled and run up to the point where it waits for the instance, then the
// cache is taken and the worker ends. Nothing of the glue's state leaves the worker.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { Script } = require('node:vm');
(async () => {
  const { wasm, glue, prefix, suffix } = workerData;
  const compiled = WebAssembly.compile(readFileSync(wasm));
  const script = new Script(prefix + readFileSync(glue, 'utf8') + suffix, { filename: glue });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(glue), module, glue, dirname(glue));
  void Promise.resolve(module.exports({ instantiateWasm: () => ({}) })).catch(() => undefined);
  const cache = script.createCachedData();
  parentPort.postMessage({ module: await compiled, cache }, [cache.buffer]);
})().catch((error) => parentPort.postMessage({ error: String((error && error.message) || error) }));
`;

/**
 * Compiles capstone.wasm and the glue's factory on a worker thread. Rejects when the worker cannot
 * run or fails (the caller then loads the engine on this thread).
 */
export async function prepareOffThread(wasm: string, glue: string): Promise<PreparedEngine> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { wasm, glue, prefix: GLUE_PREFIX, suffix: GLUE_SUFFIX },
    stdout: true,
    stderr: true,
  });
  try {
    const answer = await new Promise<{ module?: object; cache?: Uint8Array; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the engine worker exited (${code}) without an answer`)));
    });
    if (!answer.module || !answer.cache) throw new Error(answer.error ?? 'the engine worker answered nothing');
    const cache = Buffer.from(answer.cache.buffer, answer.cache.byteOffset, answer.cache.byteLength);
    return { module: answer.module, cache };
  } finally {
    await worker.terminate();
  }
}

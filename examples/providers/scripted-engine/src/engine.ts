/**
 * The engine seam: the only module that starts and speaks to the engine. The engine here is a stand-in,
 * a Node.js child process speaking a line protocol over stdio that also leaves a helper grandchild (as
 * an indexer would), so that ownership and cleanup are exercised on real processes. A real provider
 * imports its engine client library in this module and nowhere else (lint enforces it).
 */
import { createInterface } from 'node:readline';
import { withDeadline } from '@rea/provider-kit';
import type { OpenOptions, OwnedProcess } from '@rea/provider-kit';

const ENGINE = `
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const [target, project] = process.argv.slice(1);
fs.writeFileSync(project + '/project.json', JSON.stringify({ target }));
spawn('sleep', ['300'], { stdio: 'ignore' }); // an indexer helper: a grandchild of the host
const lines = require('node:readline').createInterface({ input: process.stdin });
console.log(JSON.stringify({ ready: true, version: '2.3.0' }));
lines.on('line', (line) => {
  const { offset, length } = JSON.parse(line);
  const buffer = Buffer.alloc(length);
  const fd = fs.openSync(target, 'r');
  const read = fs.readSync(fd, buffer, 0, length, offset);
  fs.closeSync(fd);
  console.log(JSON.stringify({ hex: buffer.subarray(0, read).toString('hex') }));
});
`;

/** A running engine: its version and one request at a time over its stdio. */
export interface Engine {
  readonly version: string;
  read(offset: number, length: number): Promise<string>;
  /** Stops the engine politely, then everything the supervisor owns for it. */
  stop(): Promise<void>;
}

/** Identifies the provider in deadline errors. */
const PROVIDER_ID = 'scripted-engine';

/**
 * Starts the engine on `path` through the session's supervisor (a temp project directory and the
 * process), and waits for its greeting under a startup deadline. On any failure everything started is
 * released before the error propagates.
 */
export async function startEngine(path: string, { signal, supervisor }: OpenOptions): Promise<Engine> {
  const project = await supervisor.createTempDir('scripted');
  let engine: OwnedProcess | undefined;
  try {
    engine = await supervisor.start(process.execPath, ['-e', ENGINE, path, project], {
      stdin: 'pipe',
      stdout: 'pipe',
      signal,
    });
    const lines = createInterface({ input: engine.stdout! })[Symbol.asyncIterator]();
    const next = async (): Promise<Record<string, unknown>> => {
      const { value, done } = await lines.next();
      if (done) throw new Error('engine closed its output');
      return JSON.parse(value as string) as Record<string, unknown>;
    };
    const hello = await withDeadline(() => next(), { ms: 20_000, signal, phase: 'startup', providerId: PROVIDER_ID });
    const running = engine;
    return {
      version: String(hello['version']),
      read: async (offset, length) => {
        running.stdin!.write(`${JSON.stringify({ offset, length })}\n`);
        return String((await next())['hex']);
      },
      stop: async () => {
        running.stdin!.end();
        await supervisor.closeAll({ graceMs: 2000 });
      },
    };
  } catch (error) {
    await supervisor.closeAll({ graceMs: 500 }).catch(() => undefined);
    throw error;
  }
}

/**
 * The engine seam: the only module that starts the engine. The engine here is a stand-in, a Node.js
 * child process that counts the lines of a file; a real tools provider starts its browser, debugger or
 * device bridge here. The process is started through the call's supervisor (`ToolContext.supervisor`),
 * which the host closes when the call ends: no process outlives the request that started it — on
 * success, on failure and on cancellation — without a `finally` here.
 */
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { ProcessSupervisor } from '@rea/provider-kit';

const COUNTER = `
let lines = 0;
require('node:fs').createReadStream(process.argv[1])
  .on('data', (chunk) => { for (const byte of chunk) if (byte === 10) lines += 1; })
  .on('end', () => console.log(JSON.stringify({ lines })))
  .on('error', (error) => { console.error(error.message); process.exit(3); });
`;

/**
 * Counts the newline bytes of the file at `path` in a process started through `supervisor` (the
 * call's). `signal` ends the process early (`cancelled`); a counter that fails is `execution_failure`.
 */
export async function countLines(path: string, supervisor: ProcessSupervisor, signal: AbortSignal): Promise<number> {
  throwIfAborted(signal, 'count_lines');
  const counter = await supervisor.start(process.execPath, ['-e', COUNTER, path], { stdout: 'pipe', signal });
  const chunks: Buffer[] = [];
  counter.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exit = await counter.exited;
  throwIfAborted(signal, 'count_lines');
  if (exit.exitCode !== 0) {
    throw new ReaError('execution_failure', `The line counter failed on ${path}: ${counter.stderrTail().trim()}`, {
      remediation: 'Pass the path of a readable regular file.',
      details: { exit_code: exit.exitCode, signal: exit.signal },
    });
  }
  return (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { lines: number }).lines;
}

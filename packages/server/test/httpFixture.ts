/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The stand-in test entry (built server + scripted stand-in providers). */
export const standInEntry = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'standInServer.mjs');

/**
 * Starts the stand-in entry in HTTP mode (with `env` added to this environment) and reads its first stdout
 * line ({url} or {error}); `stderr()` is what it has logged so far.
 */
export async function startHttpEntry(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; line: Record<string, any>; stop(): Promise<void>; stderr(): string }> {
  const child = spawn(process.execPath, [standInEntry, 'http', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
    if (process.env['REA_E2E_SERVER_STDERR']) process.stderr.write(chunk);
  });
  const line = await new Promise<Record<string, any>>((resolve, reject) => {
    let buffer = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      const index = buffer.indexOf('\n');
      if (index >= 0) resolve(JSON.parse(buffer.slice(0, index)) as Record<string, any>);
    });
    // 'close' comes after stdout is drained, so a line printed just before exiting is not lost.
    child.on('close', (code) => {
      const text = buffer.trim();
      if (text) resolve(JSON.parse(text.split('\n')[0]!) as Record<string, any>);
      else reject(new Error(`the HTTP entry exited (${code}) before printing its address`));
    });
  }).catch((error: Error): Record<string, any> => ({ exit_error: error.message }));
  if (typeof line['url'] !== 'string' && line['error'] === undefined) {
    throw new Error(
      `the HTTP entry did not start: ${JSON.stringify(line)} (run with REA_E2E_SERVER_STDERR=1 to see why)`,
    );
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, line, stop, stderr: () => stderr };
}

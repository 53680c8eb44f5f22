import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixture executable: the built CLI with test tools (see fixtures/cli.mjs). */
export const FIXTURE_CLI = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'cli.mjs');

/** The outcome of one CLI process. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `node <script> ...args` with the given environment; stdin is closed unless `input` is given. */
export function start(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): { child: ChildProcess; done: Promise<RunResult> } {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd ?? process.cwd(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  if (options.input !== undefined) child.stdin!.write(options.input);
  child.stdin!.end();
  const done = new Promise<RunResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Runs the process to completion. */
export function run(
  script: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): Promise<RunResult> {
  return start(script, args, options).done;
}

/** True when the text carries a JavaScript stack trace. */
export function hasStack(text: string): boolean {
  return /\n\s+at .+(\(|:\d+:\d+)/.test(text) || /node:internal/.test(text);
}

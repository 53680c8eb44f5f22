import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built `rea` command. */
export const REA_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bin.cjs');

/** A running `rea mcp --http …` process. */
export interface HttpEntry {
  child: ChildProcess;
  /** The MCP endpoint it printed, or null when it exited first. */
  url: string | null;
  /** Its exit status when it exited before printing a URL. */
  exitCode: number | null;
  stderr(): string;
  /** Ends it (SIGTERM, then SIGKILL if it is still running after 10 s) and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `rea mcp --http <address> ...extra` from the built package (with Node.js's `nodeOptions` and
 * `env` added to this process's environment) and waits for its URL line on stderr.
 */
export async function startReaHttp(
  address: string,
  extra: readonly string[] = [],
  { nodeOptions = [], env = {} }: { nodeOptions?: readonly string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<HttpEntry> {
  const child = spawn(process.execPath, [...nodeOptions, REA_BIN, 'mcp', '--http', address, ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string | null>((resolve) => {
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const found = /MCP over Streamable HTTP at (\S+)/.exec(stderr);
      if (found) resolve(found[1]!);
    });
    void exited.then(() => resolve(null));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { child, url, exitCode: child.exitCode, stderr: () => stderr, stop };
}

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/** A server process driven with raw lines on its stdin; every stdout line is parsed as it arrives. */
export interface RawStdio {
  child: ChildProcess;
  /** Every line the server wrote to stdout, in order. */
  lines: string[];
  /** Writes raw text (a newline is not added). */
  write(text: string): void;
  /**
   * Resolves with the first message (from the `from`th line on) matching `predicate` (rejects after 30 s
   * of waiting).
   */
  next(predicate: (message: Record<string, unknown>) => boolean, from?: number): Promise<Record<string, unknown>>;
  /** Ends stdin and resolves with the exit code. */
  end(): Promise<number | null>;
}

/**
 * Starts `node <script> ...args` and performs the MCP handshake over raw stdio lines, asking for
 * `protocolVersion`.
 */
export async function startRawStdio(
  script: string,
  args: readonly string[] = [],
  protocolVersion = '2025-11-25',
): Promise<RawStdio> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let index;
    while ((index = buffer.indexOf('\n')) >= 0) {
      lines.push(buffer.slice(0, index));
      buffer = buffer.slice(index + 1);
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const next = (predicate: (message: Record<string, unknown>) => boolean, from = 0) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = (): void => {
        for (const line of lines.slice(from)) {
          const message = JSON.parse(line) as Record<string, unknown>;
          if (predicate(message)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(message);
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error('no matching message from the server'));
      }, 30_000);
      waiters.add(check);
      check();
    });
  const write = (text: string): void => void child.stdin!.write(text);
  write(
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    })}\n`,
  );
  await next((message) => message['id'] === 'init');
  write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    child,
    lines,
    write,
    next,
    end: async () => {
      child.stdin!.end();
      return exited;
    },
  };
}

import { homedir } from 'node:os';
import type { CliIo } from './host.js';

/** The real process as a {@link CliIo}: its streams, environment, working directory, home and signals. */
export function createProcessIo(): CliIo {
  return {
    stdout: process.stdout,
    // Opened when a command first writes to it or asks whether it is a terminal: on a pipe or a terminal
    // the stream loads Node.js's socket modules, which a quiet command that succeeds never needs.
    stderr: {
      write: (chunk: string) => process.stderr.write(chunk),
      get isTTY() {
        return process.stderr.isTTY;
      },
      get columns() {
        return process.stderr.columns;
      },
    },
    // Made when a command first reads it (input given on stdin, or a check for a terminal): opening it
    // costs a stream of its own, which most commands never read.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    home: process.env['HOME'] || homedir(),
    platform: process.platform,
    signals: process,
  };
}

import { homedir } from 'node:os';
import type { CliIo } from './host.js';

/** The real process as a {@link CliIo}: its streams, environment, working directory, home and signals. */
export function createProcessIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    home: process.env['HOME'] || homedir(),
    platform: process.platform,
    signals: process,
  };
}

import { createProcessIo, runCli } from '@rea/cli';
import { createReaHost } from './host.js';

/** Runs `rea` with `argv` (without node and script) in this process; resolves with the exit status. */
export async function main(argv: readonly string[]): Promise<number> {
  return runCli(argv, createReaHost(), createProcessIo());
}

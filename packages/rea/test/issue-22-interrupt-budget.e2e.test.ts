// A `rea` command that runs once raises V8's interrupt budget (bin.ts): V8 then optimizes only the
// functions that do real work, not every function a command calls briefly, and exit no longer waits
// for those compiles. V8 reports each optimization it starts with --trace-opt; the same analysis of
// a system program starts far fewer of them than with V8's default budget given on node's own
// command line, which the executable leaves as given.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const PROGRAM = ['/usr/bin/ls', '/bin/ls'].find((path) => existsSync(path))!;
/** V8's own interrupt budget (V8 11, Node.js 20 and 22). */
const V8_DEFAULT_BUDGET = 67_584;

/** The optimizations V8 starts during `rea analyze PROGRAM`, with `nodeOptions` before the script. */
function optimizations(nodeOptions: string[]): number {
  const run = spawnSync(process.execPath, [...nodeOptions, '--trace-opt', bin, 'analyze', PROGRAM, '--quiet'], {
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(run.status).toBe(0);
  // The report itself is on stdout too: it names the program analysed.
  expect(run.stdout).toContain(`${PROGRAM}: native-binary (elf)`);
  // One line per function V8 starts to optimize (some compiles are still running when the process exits).
  return run.stdout.split('\n').filter((line) => line.startsWith('[compiling method')).length;
}

describe('issue 22: the interrupt budget of a command', () => {
  it('should optimize fewer functions than V8 does by default, and leave a budget given to node alone', () => {
    const command = optimizations([]);
    const given = optimizations([`--interrupt-budget=${V8_DEFAULT_BUDGET}`]);
    // The instruction sweep is still optimized: something is.
    expect(command).toBeGreaterThan(0);
    // 14 against 30 to 43 on /usr/bin/ls (how many V8 starts before the process exits varies).
    expect(command * 1.5).toBeLessThan(given);
    // Another V8 flag whose name begins the same way is not a budget: the command's budget still applies.
    const similar = optimizations(['--interrupt-budget-factor-for-feedback-allocation=8']);
    expect(similar * 1.5).toBeLessThan(given);
  }, 240_000);
});

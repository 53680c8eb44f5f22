import { afterAll, expect } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import { createLineCountProvider } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'rea-example-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A text file of `count` lines of random length, with no newline after the last one. */
function textFile(name: string, count: number): string {
  const lines = Array.from({ length: count }, (_, i) => 'x'.repeat((i * 7919) % 97));
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n'));
  return path;
}

/** The last call started exactly one counter process, and it (and anything it started) is gone. */
function expectCounterGone(context: CapabilityCheckContext): void {
  const lineage = context.lastCallLineage();
  expect(lineage).toHaveLength(1);
  // Where the host has no process table to observe, the lineage says so instead.
  if (lineage[0]!.status === 'verified') {
    expect(lineage[0]).toMatchObject({ launcher_alive: false, descendants: [] });
  }
}

describeProviderContract('example: line count (a process per call)', () => createLineCountProvider(), {
  // The advertised example names /etc/hosts; run it on a file of this test instead.
  exampleInput: (_tool, input) => ({ ...(input as object), path: textFile('example.txt', 3) }),
  capabilityProbes: {
    'line-count': async (context) => {
      const { runTool } = context;
      // Success: the count, and the call's counter process ended with the call.
      await expect(runTool('count_lines', { path: textFile('lines.txt', 1001) })).resolves.toMatchObject({
        kind: 'evidence',
        record: { normalized_result: { lines: 1000 } },
      });
      expectCounterGone(context);
      // Failure after the process started (a directory cannot be read as a file).
      const folder = join(dir, 'folder');
      mkdirSync(folder, { recursive: true });
      await expect(runTool('count_lines', { path: folder })).rejects.toMatchObject({ code: 'execution_failure' });
      expectCounterGone(context);
      // A missing file is refused before any process starts.
      await expect(runTool('count_lines', { path: join(dir, 'absent.txt') })).rejects.toMatchObject({
        code: 'not_found',
      });
      expect(context.lastCallLineage()).toEqual([]);
      // Cancellation while the counter waits on a FIFO nobody writes to: the counter is running (it has
      // opened the FIFO for reading once opening it for writing returns), then the call is cancelled.
      const fifo = join(dir, 'fifo');
      if (spawnSync('mkfifo', [fifo]).status !== 0) return; // no FIFOs on this platform
      const controller = new AbortController();
      const call = runTool('count_lines', { path: fifo }, { signal: controller.signal });
      const writer = await open(fifo, 'w');
      try {
        controller.abort();
        await expect(call).rejects.toMatchObject({ code: 'cancelled' });
      } finally {
        await writer.close();
      }
      expectCounterGone(context);
    },
  },
});

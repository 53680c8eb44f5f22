import { afterAll, expect } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProviderContract } from '@rea/contract-tests';
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

describeProviderContract('example: line count (a process per call)', () => createLineCountProvider(), {
  // The advertised example names /etc/hosts; run it on a file of this test instead.
  exampleInput: (_tool, input) => ({ ...(input as object), path: textFile('example.txt', 3) }),
  capabilityProbes: {
    'line-count': async ({ runTool }) => {
      const outcome = await runTool('count_lines', { path: textFile('lines.txt', 1001) });
      expect(outcome).toMatchObject({ kind: 'evidence', record: { normalized_result: { lines: 1000 } } });
      await expect(runTool('count_lines', { path: join(dir, 'absent.txt') })).rejects.toMatchObject({
        code: 'not_found',
      });
    },
  },
});

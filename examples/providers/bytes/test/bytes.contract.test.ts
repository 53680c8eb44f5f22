import { afterAll, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProviderContract } from '@rea/contract-tests';
import { createBytesProvider } from '../src/index.js';

// A target of random bytes whose length is not a multiple of 16, so the last window is short.
const dir = mkdtempSync(join(tmpdir(), 'rea-example-bytes-'));
const targetPath = join(dir, 'target.bin');
writeFileSync(targetPath, randomBytes(100));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeProviderContract('example: bytes', () => createBytesProvider(), {
  target: { path: targetPath, format: 'raw' },
  capabilityProbes: {
    'read-bytes': async ({ runTool }) => {
      const bytes = readFileSync(targetPath);
      const full = await runTool('read_target_bytes', { offset: 3 });
      expect(full).toMatchObject({
        kind: 'evidence',
        record: { normalized_result: { hex: bytes.subarray(3, 19).toString('hex') }, coverage: { status: 'complete' } },
      });
      const tail = await runTool('read_target_bytes', { offset: 90 });
      expect(tail).toMatchObject({
        record: { normalized_result: { hex: bytes.subarray(90).toString('hex') }, coverage: { status: 'partial' } },
      });
    },
  },
});

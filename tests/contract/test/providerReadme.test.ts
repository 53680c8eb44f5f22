import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeProviderContract } from '@rea/contract-tests';
import { createBytesProvider } from '../src/examples/bytesProvider.js';

const here = dirname(fileURLToPath(import.meta.url));
const example = resolve(here, '..', 'src', 'examples', 'bytesProvider.ts');
const readme = resolve(here, '..', '..', '..', 'packages', 'provider-kit', 'README.md');

// A target of random bytes whose length is not a multiple of 16, so the last window is short.
const dir = mkdtempSync(join(tmpdir(), 'rea-contract-bytes-'));
const targetPath = join(dir, 'target.bin');
writeFileSync(targetPath, randomBytes(100));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeProviderContract('README example (bytes)', () => createBytesProvider(), {
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

describe('provider-kit README', () => {
  it('should show exactly the provider the contract suite runs, in under 60 lines', () => {
    const source = readFileSync(example, 'utf8');
    const blocks = [...readFileSync(readme, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(source);
    expect(source.trimEnd().split('\n').length).toBeLessThan(60);
  });
});

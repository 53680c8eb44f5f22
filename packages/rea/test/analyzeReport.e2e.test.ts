import { expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');

skipUnless(toolsMissing('gcc'))('rea analyze, readable report of a native binary', () => {
  it('should name the architecture, the sections and the discovered procedures', async () => {
    const binary = compileFixture({
      source: join(here, 'fixtures', 'report.c'),
      compiler: 'gcc',
      args: ['-O0', '-fno-inline'],
      output: 'report',
    });
    const result = await run(bin, ['analyze', binary]);
    expect(result.code).toBe(0);
    // One line per nested object, with its facts inline.
    expect(result.stdout).toMatch(/document: .*architecture=x86_64/);
    expect(result.stdout).toMatch(/headers: format=elf, architecture=x86_64/);
    // Arrays are counted and their first items named (with addresses when they have one).
    expect(result.stdout).toMatch(/sections: \d+ items \(\.interp@0x[0-9a-f]+/);
    expect(result.stdout).toMatch(/evidence ids:\n(\s+ev_[0-9a-f]{64}\s+\w+\n){3}/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

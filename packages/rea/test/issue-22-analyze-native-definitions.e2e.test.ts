// `rea analyze` of a native binary runs one native tool, binary_overview: the process evaluates the
// module that declares it (with list_segments beside it) and none of the other native tools' definitions
// (their zod schemas are built only when one of them is used). What ran is read from V8's coverage.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { createCompositionTools, createDefaultProviders } from 'rea-mcp';
import { evaluatedTools, runCovered } from './evaluatedTools.js';

const here = dirname(fileURLToPath(import.meta.url));

skipUnless(toolsMissing('gcc'))('issue 22: rea analyze builds only the native tool it runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-analyze-defs-'));
  const titles = new Map<string, string>();
  /** The Android provider's tools, title → name: a native analysis has no use for them. */
  const android = new Map<string, string>();
  let result: { code: number | null; stdout: string };
  let coverage: string;
  beforeAll(async () => {
    for (const tool of await createCompositionTools()) titles.set(tool.title, tool.name);
    for (const provider of await createDefaultProviders())
      if (provider.id === 'android') for (const tool of provider.tools()) android.set(tool.title, tool.name);
    const binary = compileFixture({
      source: join(here, 'fixtures', 'report.c'),
      compiler: 'gcc',
      args: ['-O0', '-fno-inline'],
      output: 'report',
    });
    coverage = join(dir, 'coverage');
    result = await runCovered(['analyze', binary, '--format', 'json', '--quiet'], coverage);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should report the overview of the binary', () => {
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { steps: Array<{ tool: string; evidence_id: string | null }> };
    expect(report.steps.map((step) => [step.tool, step.evidence_id !== null])).toEqual([
      ['inspect_binary_layout', true],
      ['inspect_artifact', true],
      ['binary_overview', true],
    ]);
  });

  it('should load the definitions of binary_overview and its module only', () => {
    expect(titles.size).toBeGreaterThan(20);
    expect(evaluatedTools(coverage, titles)).toEqual(['binary_overview', 'list_segments']);
  });

  it('should not load the Android provider', () => {
    expect(android.size).toBeGreaterThan(0);
    expect(evaluatedTools(coverage, android)).toEqual([]);
  });
});

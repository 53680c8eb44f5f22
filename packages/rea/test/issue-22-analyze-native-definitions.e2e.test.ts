// `rea analyze` of a native binary runs one native tool, binary_overview: the process loads the module
// that declares it (with list_segments beside it) and none of the other native tools' definitions (their
// zod schemas are built only when one of them is used).
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { createCompositionTools } from 'rea-mcp';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.js');
const tracer = join(here, 'fixtures', 'traceModules.mjs');

/** Runs `rea analyze <path> --format json` with every loaded module's URL written to `trace`. */
function analyzeTraced(path: string, trace: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--import', tracer, bin, 'analyze', path, '--format', 'json', '--quiet'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, REA_TEST_MODULE_TRACE: trace },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/** The native tools whose definition (a `title:` property of an object literal) a loaded file holds. */
function definedIn(urls: readonly string[], titles: ReadonlyMap<string, string>): string[] {
  const found = new Set<string>();
  for (const url of urls) {
    const text = readFileSync(fileURLToPath(url), 'utf8');
    for (const [title, name] of titles) {
      const literal = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`\\btitle:\\s*["'\`]${literal}["'\`]`).test(text)) found.add(name);
    }
  }
  return [...found].sort();
}

skipUnless(toolsMissing('gcc'))('issue 22: rea analyze builds only the native tool it runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-analyze-defs-'));
  const titles = new Map<string, string>();
  let result: { code: number | null; stdout: string };
  let loaded: string[];
  beforeAll(async () => {
    for (const tool of await createCompositionTools()) titles.set(tool.title, tool.name);
    const binary = compileFixture({
      source: join(here, 'fixtures', 'report.c'),
      compiler: 'gcc',
      args: ['-O0', '-fno-inline'],
      output: 'report',
    });
    const trace = join(dir, 'modules.txt');
    result = await analyzeTraced(binary, trace);
    loaded = readFileSync(trace, 'utf8').trim().split('\n');
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
    expect(definedIn(loaded, titles)).toEqual(['binary_overview', 'list_segments']);
  });
});

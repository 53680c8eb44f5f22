// A tool command (`rea inspect-artifact <path>`) builds the definition of its own tool and of the
// provider that contributes it, not the whole catalog: before, every one of the 74 tools' schemas was
// built and every provider imported to print one tool's answer (or its --help).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDefaultProviders, createDefaultTools } from 'rea-mcp';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.js');
const tracer = join(here, 'fixtures', 'traceModules.mjs');

/** Runs `rea <args>` with every loaded module's URL written to `trace`. */
function runTraced(args: readonly string[], trace: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--import', tracer, bin, ...args], {
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

/** The tools whose definition (a `title:` property of an object literal) a loaded file holds. */
function definedIn(trace: string, titles: ReadonlyMap<string, string>): string[] {
  const found = new Set<string>();
  for (const url of readFileSync(trace, 'utf8').trim().split('\n')) {
    const text = readFileSync(fileURLToPath(url), 'utf8');
    for (const [title, name] of titles) {
      const literal = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`\\btitle:\\s*["'\`]${literal}["'\`]`).test(text)) found.add(name);
    }
  }
  return [...found].sort();
}

describe('issue 22: a tool command loads its own tool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-tool-command-'));
  const titles = new Map<string, string>();
  const artifactTools = ['compare_artifacts', 'extract_artifact', 'inspect_artifact', 'inspect_binary_layout'];
  beforeAll(async () => {
    for (const tool of await createDefaultTools(await createDefaultProviders())) titles.set(tool.title, tool.name);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should inspect a file with the artifact provider only', async () => {
    const trace = join(dir, 'inspect.txt');
    const result = await runTraced(['inspect-artifact', process.execPath, '--format', 'json', '--quiet'], trace);
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout) as { provider: { id: string }; subject: { size: number } };
    expect(record.provider.id).toBe('artifact');
    expect(titles.size).toBeGreaterThan(60);
    expect(definedIn(trace, titles)).toEqual(artifactTools);
  }, 60_000);

  it("should print a tool's help without loading another provider's tools", async () => {
    const trace = join(dir, 'help.txt');
    const result = await runTraced(['extract-artifact', '--help'], trace);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: rea extract-artifact/);
    expect(definedIn(trace, titles)).toEqual(artifactTools);
  }, 60_000);

  it('should still suggest the closest command for a misspelt one', async () => {
    const child = spawn(process.execPath, [bin, 'inspect-artifct', '/nope'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('Did you mean inspect-artifact?');
  }, 60_000);
});

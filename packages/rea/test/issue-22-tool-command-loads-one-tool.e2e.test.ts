// A tool command (`rea inspect-artifact <path>`) builds the definition of its own tool and of the
// provider that contributes it, not the whole catalog: before, every one of the 74 tools' schemas was
// built and every provider imported to print one tool's answer (or its --help). What ran is read from
// V8's coverage of the command line's script.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDefaultProviders, createDefaultTools } from 'rea-mcp';
import { bin, evaluatedTools, runCovered } from './evaluatedTools.js';

describe('issue 22: a tool command loads its own tool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-tool-command-'));
  const titles = new Map<string, string>();
  const artifactTools = ['compare_artifacts', 'extract_artifact', 'inspect_artifact', 'inspect_binary_layout'];
  beforeAll(async () => {
    for (const tool of await createDefaultTools(await createDefaultProviders())) titles.set(tool.title, tool.name);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should inspect a file with the artifact provider only', async () => {
    const coverage = join(dir, 'inspect');
    const result = await runCovered(['inspect-artifact', process.execPath, '--format', 'json', '--quiet'], coverage);
    expect(result.code).toBe(0);
    const record = JSON.parse(result.stdout) as { provider: { id: string }; subject: { size: number } };
    expect(record.provider.id).toBe('artifact');
    expect(titles.size).toBeGreaterThan(60);
    expect(evaluatedTools(coverage, titles)).toEqual(artifactTools);
  }, 60_000);

  it("should print a tool's help without loading another provider's tools", async () => {
    const coverage = join(dir, 'help');
    const result = await runCovered(['extract-artifact', '--help'], coverage);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: rea extract-artifact/);
    expect(evaluatedTools(coverage, titles)).toEqual(artifactTools);
  }, 60_000);

  it('should still suggest the closest command for a misspelt one', async () => {
    const child = spawn(process.execPath, [bin, 'inspect-artifct', '/nope'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("Unknown command 'inspect-artifct' (did you mean inspect-artifact?)");
  }, 60_000);
});

/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// Calls sent while open_binary is still running, over a real stdio pipe to the built `rea mcp`: a call
// that needs the open target (binary_overview, list_procedures) waits for that open and answers about
// the target it opened; when the open fails, such a call fails with the open's own error.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bin.cjs');

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };
const valueOf = (result: Result): Record<string, any> => {
  if (result.isError) throw new Error(`unexpected failure: ${result.content[0]?.text ?? ''}`);
  return result.structuredContent as Record<string, any>;
};
const errorOf = (result: Result): Record<string, any> => {
  expect(result.isError).toBe(true);
  return (JSON.parse(result.content[0]!.text!) as { error: Record<string, any> }).error;
};

describe('calls sent while open_binary runs', () => {
  let dir: string;
  let binary: string;
  let client: Client;
  const call = (name: string, args: Record<string, unknown> = {}): Promise<Result> =>
    client.callTool({ name, arguments: args }, { timeout: 120_000 }) as Promise<Result>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-open-wait-'));
    writeFileSync(
      join(dir, 'two.c'),
      '#include <stdio.h>\n__attribute__((noinline)) int twice(int x) { return 2 * x; }\n' +
        'int main(int argc, char **argv) { printf("%d\\n", twice(argc)); return 0; }\n',
    );
    binary = join(dir, 'two');
    execFileSync('gcc', ['-O1', '-o', binary, join(dir, 'two.c')]);
  });
  beforeEach(async () => {
    client = new Client({ name: 'rea-open-wait-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], stderr: 'ignore', cwd: dir }),
    );
  });
  afterEach(async () => {
    await client?.close();
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('should answer a call sent right after open_binary about the target that open opened', async () => {
    // Sent together: neither is awaited before the others are sent.
    const opening = call('open_binary', { path: binary });
    const overview = call('binary_overview');
    const procedures = call('list_procedures');
    const [opened, seen, listed] = await Promise.all([opening, overview, procedures]);
    const sha256 = createHash('sha256').update(readFileSync(binary)).digest('hex');
    expect(valueOf(opened)['target']).toMatchObject({ path: binary, sha256 });
    const record = valueOf(seen);
    expect(record['operation']).toBe('binary_overview');
    expect(record['subject']).toMatchObject({ sha256 });
    // nm names the procedures the compiler emitted: the listing is of this binary.
    const defined = execFileSync('nm', ['--defined-only', binary], { encoding: 'utf8' });
    expect(defined).toMatch(/ T twice$/m);
    const names = JSON.stringify(valueOf(listed)['normalized_result']);
    expect(names).toContain('twice');
  });

  it("should fail a call sent right after an open_binary that fails with that open's error", async () => {
    const missing = join(dir, 'not-there');
    const opening = call('open_binary', { path: missing });
    const overview = call('binary_overview');
    const [opened, seen] = await Promise.all([opening, overview]);
    const openError = errorOf(opened);
    expect(openError['code']).toBe('not_found');
    const error = errorOf(seen);
    expect({ code: error['code'], message: error['message'] }).toEqual({
      code: openError['code'],
      message: openError['message'],
    });
  });

  it('should still refuse a call that needs a target when no open_binary was sent before it', async () => {
    const error = errorOf(await call('binary_overview'));
    expect(error['code']).toBe('capability_unavailable');
    expect(error['message']).toMatch(/no native target is open/);
  });
});

// A path that names no regular file or folder, a FIFO above all, must get an answer: every tool that
// takes a `path` is called over a real MCP connection with a FIFO that nothing writes to (opening one
// to read waits for a writer), and must answer with a typed error, not wait forever. The command
// line's `rea analyze` does the same. A file whose read fails (EIO: /proc/self/mem) is target_unavailable
// with what to do, not an internal error.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REA_BIN } from './httpEntry.js';

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** A value its schema accepts (an object with its required properties), for the inputs besides `path`. */
function filler(schema: JsonSchema | undefined): unknown {
  if (schema?.enum !== undefined) return schema.enum[0];
  switch (schema?.type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((name) => [name, filler(schema.properties?.[name])]));
    default:
      return 'x';
  }
}

const ANSWER_WITHIN_MS = 20_000;

describe('a FIFO or an unreadable special file given as a path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-special-files-'));
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'rea-special-files', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'ignore' }),
    );
  });
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should get a typed error from every tool that takes a path', async () => {
    const { tools } = await client.listTools();
    const taking = tools.filter((tool) => (tool.inputSchema as JsonSchema).properties?.path !== undefined);
    // inspect_artifact, inspect_binary_layout, open_binary, the Android and JavaScript tools, ...
    expect(taking.length).toBeGreaterThanOrEqual(10);
    const unanswered: string[] = [];
    const untyped: string[] = [];
    for (const tool of taking) {
      const schema = tool.inputSchema as JsonSchema;
      // Each tool its own FIFO: a tool that writes to its path (an export) may replace it with its file.
      const path = join(dir, `${tool.name}.fifo`);
      execFileSync('mkfifo', [path]);
      const input: Record<string, unknown> = { path };
      for (const name of schema.required ?? []) if (name !== 'path') input[name] = filler(schema.properties?.[name]);
      let timer: NodeJS.Timeout | undefined;
      const answer = await Promise.race([
        client.callTool({ name: tool.name, arguments: input }) as Promise<{
          isError?: boolean;
          content: Array<{ text?: string }>;
        }>,
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ANSWER_WITHIN_MS))),
      ]);
      clearTimeout(timer);
      if (answer === null) {
        unanswered.push(tool.name);
        continue;
      }
      // Either refused (a typed error) or, for a tool that only names the path (a device push), answered.
      const text = answer.content.map((c) => c.text ?? '').join('\n');
      if (answer.isError === true && !/^[a-z_]+:|"code":\s*"[a-z_]+"/m.test(text))
        untyped.push(`${tool.name}: ${text}`);
    }
    expect(unanswered).toEqual([]);
    expect(untyped).toEqual([]);
  }, 600_000);

  it('should be refused by `rea analyze` as a special file', () => {
    const fifo = join(dir, 'analyze.fifo');
    execFileSync('mkfifo', [fifo]);
    const run = spawnSync(process.execPath, [REA_BIN, 'analyze', fifo, '--format', 'json'], {
      encoding: 'utf8',
      timeout: ANSWER_WITHIN_MS,
    });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(10);
    const error = (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('unsupported_target');
    expect(error.message).toContain('neither a regular file nor a directory');
  }, 60_000);

  it.each([['inspect-artifact'], ['inspect-binary-layout'], ['analyze'], ['inspect-android-package']])(
    'should answer %s of a file that fails to read (EIO from /proc/self/mem) with target_unavailable',
    (command) => {
      const run = spawnSync(process.execPath, [REA_BIN, command, '/proc/self/mem', '--format', 'json'], {
        encoding: 'utf8',
        timeout: ANSWER_WITHIN_MS,
      });
      expect(run.status).toBe(9);
      const error = (JSON.parse(run.stdout) as { error: { code: string; remediation: string } }).error;
      expect(error.code).toBe('target_unavailable');
      expect(error.remediation).toContain('regular file that can be read');
    },
    60_000,
  );
});

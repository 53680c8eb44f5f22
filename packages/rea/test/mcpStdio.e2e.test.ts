import { describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const initialize = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
})}\n`;

describe('rea mcp over stdio (served without the command-line program)', () => {
  it.each([[['mcp']], [[]]])('should answer initialize and end with stdin for `rea %j`', async (args) => {
    const result = await run(bin, args, { input: initialize });
    expect(result.code).toBe(0);
    const reply = JSON.parse(result.stdout.trim().split('\n')[0]!) as {
      id: number;
      result: { serverInfo: { name: string } };
    };
    expect(reply).toMatchObject({ id: 1, result: { serverInfo: { name: 'rea-mcp' } } });
  });

  it('should refuse an invalid setting with one line, the CLI exit status and no stack', async () => {
    const result = await run(bin, ['mcp'], { env: { REA_MCP_INPUT_SCHEMA_PROFILE: 'tiny' }, input: initialize });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^rea: error \[configuration_invalid\]: REA_MCP_INPUT_SCHEMA_PROFILE="tiny"/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

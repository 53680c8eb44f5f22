// Error responses echoed a 2 MB input path up to three times. Echoed input is capped where diagnostics
// are made: a bounded prefix and the original length.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { DIAGNOSTIC_STRING_LIMIT } from '@rea/evidence';
import { REA_BIN } from './httpEntry.js';

describe('issue 15: echoed input in error responses (rea mcp over stdio)', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'ignore' }),
    );
  });
  afterAll(async () => {
    await client.close();
  });

  it.each([['inspect_artifact'], ['inspect_binary_layout'], ['open_binary']])(
    'should answer %s with a 2 MB path in a bounded error that states the original length',
    async (tool) => {
      const path = `/nonexistent/${'segment/'.repeat(256 * 1024)}file`;
      const result = (await client.callTool({ name: tool, arguments: { path } })) as {
        content: Array<{ text: string }>;
        isError?: boolean;
      };
      expect(result.isError).toBe(true);
      const text = result.content[0]!.text;
      expect(text.length).toBeLessThan(4 * (DIAGNOSTIC_STRING_LIMIT + 128));
      expect(text).toContain(`characters shown]`);
      expect(text).toContain(String(path.length));
    },
  );
});

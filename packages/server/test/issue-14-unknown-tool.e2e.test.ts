// An unknown tool name was answered as a tool result with isError; MCP answers it as a JSON-RPC error
// (invalid params). A line that is not JSON got no answer at all; it gets a parse error (-32700, id null).
import { describe, expect, it } from '@jest/globals';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { standInEntry } from './httpFixture.js';
import { startRawStdio } from './rawStdio.js';

describe('issue 14: unknown tools and unparsable lines', () => {
  it('should answer a call of an unknown tool with a JSON-RPC invalid-params error naming it', async () => {
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [standInEntry], stderr: 'ignore' }),
    );
    try {
      const failure = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      expect('error' in failure).toBe(true);
      const error = (failure as { error: ProtocolError }).error;
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('no_such_tool');
      // The connection goes on: a known tool still answers.
      const session = await client.callTool({ name: 'binary_session', arguments: {} });
      expect(session.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('should bound the echo of a 2 MB tool name', async () => {
    const server = await startRawStdio(standInEntry);
    try {
      const name = 'n'.repeat(2 * 1024 * 1024);
      server.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: {} } })}\n`,
      );
      const answer = await server.next((message) => message['id'] === 7);
      expect(answer['error']).toMatchObject({ code: -32602 });
      expect(JSON.stringify(answer).length).toBeLessThan(8 * 1024);
    } finally {
      await server.end();
    }
  });

  it('should answer a line that is not JSON with a parse error (-32700, id null) and keep serving', async () => {
    const server = await startRawStdio(standInEntry);
    try {
      server.write('{"jsonrpc": "2.0", "id": \n');
      const answer = await server.next((message) => message['id'] === null);
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      server.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
      expect(await server.next((message) => message['id'] === 8)).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    } finally {
      expect(await server.end()).toBe(0);
    }
  });
});

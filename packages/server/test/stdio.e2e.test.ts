/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describeTransportSuite, recordInbound } from './e2eSuite.js';

const entry = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'standInServer.mjs');

describeTransportSuite('stdio', async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' });
  const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, received: recordInbound(transport), close: () => client.close() };
});

describe('@rea/server stdio framing', () => {
  it('should answer or ignore a stream of malformed JSON-RPC lines without dying, and write only frames', async () => {
    const child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf('\n')) >= 0) {
        lines.push(buffer.slice(0, index));
        buffer = buffer.slice(index + 1);
      }
    });
    const send = (line: string) => child.stdin.write(`${line}\n`);
    const waitFor = async (id: number) => {
      for (let i = 0; i < 1200; i += 1) {
        const found = lines.map((l) => JSON.parse(l) as { id?: number }).find((m) => m.id === id);
        if (found) return found as Record<string, any>;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no answer to ${id}`);
    };
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    await waitFor(1);
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const garbage = [
      'not json at all',
      '{',
      '{"jsonrpc":"2.0"}',
      '[1,2,3]',
      '""',
      'null',
      '{"jsonrpc":"1.0","id":5,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":6,"method":"no/such/method"}',
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}',
      '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"binary_session","arguments":"not an object"}}',
      '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}',
      `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":${'9'.repeat(400)}}}`,
      'x'.repeat(1024 * 1024),
      '\u0000\u0001\u0002',
    ];
    for (const line of garbage) send(line);
    send(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }));
    const list = await waitFor(99);
    expect(list['result'].tools.length).toBeGreaterThan(7);
    expect((await waitFor(6))['error'].code).toBe(-32601);
    expect((await waitFor(7))['error']).toBeDefined();
    const unknownTool = await waitFor(9);
    expect(unknownTool['error']).toMatchObject({ code: -32602, message: expect.stringContaining('no_such_tool') });
    // A frame of the wrong shape is answered for its id.
    expect((await waitFor(5))['error'].code).toBe(-32600);
    expect(child.exitCode).toBeNull();
    // Every line on stdout is a JSON-RPC frame.
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe('2.0');
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(0);
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON explored by path in assertions */
// JSON-RPC batches over stdio follow the negotiated protocol version, as over Streamable HTTP. JSON-RPC
// 2.0 answers a batch with one array holding a response to each of its requests (none to notifications;
// nothing at all to a batch of notifications alone); MCP 2025-03-26 requires a server to receive batches,
// and 2025-06-18 removed them. Driven with raw lines against the stand-in server (a scripted test
// provider behind the real MCP server and stdio transport).
import { describe, expect, it } from '@jest/globals';
import { standInEntry } from './httpFixture.js';
import { startRawStdio } from './rawStdio.js';
import type { RawStdio } from './rawStdio.js';

const ping = (id: string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const count = (id: string, steps: number, delay_ms: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'slow_count', arguments: { steps, delay_ms } },
});
const notification = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };

/** The lines written after the `from`th, up to the answer to the single ping `id` sent last. */
async function linesUntilPing(server: RawStdio, from: number, id: string): Promise<unknown[]> {
  server.write(`${JSON.stringify(ping(id))}\n`);
  await server.next((message) => message['id'] === id);
  return server.lines.slice(from).map((line) => JSON.parse(line) as unknown);
}

describe('JSON-RPC batches over stdio', () => {
  it('should answer a 2025-03-26 batch with one array of the responses to its requests', async () => {
    const server = await startRawStdio(standInEntry, [], '2025-03-26');
    try {
      const before = server.lines.length;
      server.write(`${JSON.stringify([ping('a'), count('b', 3, 20), notification])}\n`);
      // One array for the batch, written when its slowest request is answered.
      await server.next((message) => Array.isArray(message), before);
      const answers = await linesUntilPing(server, before, 'z');
      const arrays = answers.filter((answer) => Array.isArray(answer)) as any[][];
      expect(arrays).toHaveLength(1);
      const batch = arrays[0]!;
      expect(batch.map((response) => response.id).sort()).toEqual(['a', 'b']);
      expect(batch.find((response) => response.id === 'a')).toEqual({ jsonrpc: '2.0', id: 'a', result: {} });
      const counted = batch.find((response) => response.id === 'b');
      expect(counted.result.isError).toBeFalsy();
      expect(counted.result.structuredContent.normalized_result).toEqual({ counted: 3 });
      // No response to a member was written on its own.
      expect(
        answers.filter((answer: any) => !Array.isArray(answer) && answer.id !== undefined).map((a: any) => a.id),
      ).toEqual(['z']);
    } finally {
      await server.end();
    }
  });

  it('should answer a batch of notifications with nothing, and refuse one with an invalid member whole', async () => {
    const server = await startRawStdio(standInEntry, [], '2025-03-26');
    try {
      let before = server.lines.length;
      server.write(`${JSON.stringify([notification, notification])}\n`);
      expect(await linesUntilPing(server, before, 'p1')).toEqual([{ jsonrpc: '2.0', id: 'p1', result: {} }]);
      before = server.lines.length;
      server.write(`${JSON.stringify([ping('c'), { jsonrpc: '2.0', id: 'd', method: 7 }])}\n`);
      const answers = (await linesUntilPing(server, before, 'p2')) as any[];
      // Refused as Streamable HTTP refuses it: -32600, id null, naming the member; ping c is not handled.
      expect(answers).toEqual([
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Batch member 1: Invalid Request: "method" must be a string.' },
        },
        { jsonrpc: '2.0', id: 'p2', result: {} },
      ]);
    } finally {
      await server.end();
    }
  });

  it('should answer a batch without a request cancelled meanwhile', async () => {
    const server = await startRawStdio(standInEntry, [], '2025-03-26');
    try {
      const before = server.lines.length;
      server.write(`${JSON.stringify([count('long', 1000, 50), ping('e')])}\n`);
      server.write(
        `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'long' } })}\n`,
      );
      const batch = await server.next(() => true, before);
      expect(batch).toEqual([{ jsonrpc: '2.0', id: 'e', result: {} }]);
    } finally {
      await server.end();
    }
  });

  it('should refuse a batch on 2025-06-18, which has none, naming the version', async () => {
    const server = await startRawStdio(standInEntry, [], '2025-06-18');
    try {
      const before = server.lines.length;
      server.write(`${JSON.stringify([ping('f'), ping('g')])}\n`);
      const answers = await linesUntilPing(server, before, 'p3');
      expect(answers).toEqual([
        {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message:
              'Invalid Request: protocol version 2025-06-18 has no JSON-RPC batches (removed in 2025-06-18); send one message per request.',
          },
        },
        { jsonrpc: '2.0', id: 'p3', result: {} },
      ]);
    } finally {
      await server.end();
    }
  });
});

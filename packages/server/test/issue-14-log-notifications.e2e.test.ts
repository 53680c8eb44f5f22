/* eslint-disable @typescript-eslint/no-explicit-any -- log entries are JSON explored by path in assertions */
// Log notifications (notifications/message) for the phases of a call, once the client has chosen a
// level, and none before it has.
import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { recordInbound, valueOf } from './e2eSuite.js';
import { standInEntry } from './httpFixture.js';

async function connect(): Promise<{ client: Client; received: Array<Record<string, any>> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [standInEntry], stderr: 'ignore' });
  const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, received: recordInbound(transport) };
}

const logged = (received: Array<Record<string, any>>) =>
  received.filter((message) => message['method'] === 'notifications/message').map((message) => message['params']);

describe('issue 14: log notifications for the phases of a call', () => {
  it('should send none before the client sets a level, then every phase at and above it', async () => {
    const { client, received } = await connect();
    try {
      valueOf(await client.callTool({ name: 'slow_count', arguments: { steps: 3, delay_ms: 1 } }));
      await client.callTool({ name: 'open_binary', arguments: { path: '/nonexistent/rea-target' } });
      expect(logged(received)).toEqual([]);

      await client.setLoggingLevel('debug');
      received.length = 0;
      const record = valueOf(await client.callTool({ name: 'slow_count', arguments: { steps: 3, delay_ms: 1 } }));
      const entries = logged(received);
      expect(entries.every((entry) => entry.logger === 'rea' && entry.data.tool === 'slow_count')).toBe(true);
      const messages = entries.map((entry) => `${entry.level} ${entry.data.message}`);
      expect(messages[0]).toBe('info started');
      expect(messages.at(-1)).toBe('info completed');
      expect(entries.at(-1).data.evidence_id).toBe(record['evidence_id']);
      // Debug entries carry the progress of the phases in between.
      expect(messages.filter((message) => message.startsWith('debug slow_count: ')).length).toBeGreaterThan(0);

      received.length = 0;
      await client.callTool({ name: 'open_binary', arguments: { path: '/nonexistent/rea-target' } });
      const failed = logged(received).at(-1);
      expect(failed).toMatchObject({ level: 'warning', data: { tool: 'open_binary', message: 'failed' } });
      expect(typeof failed.data.code).toBe('string');

      await client.setLoggingLevel('warning');
      received.length = 0;
      valueOf(await client.callTool({ name: 'slow_count', arguments: { steps: 3, delay_ms: 1 } }));
      expect(logged(received)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

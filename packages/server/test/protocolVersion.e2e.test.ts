/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// Which MCP protocol version a client gets, and that binary_session reports exactly that one. The
// server offers the 2025-era `initialize` handshake only (see README: the stateless 2026-07-28 era has no
// session, and REA's contract is a stateful connection).
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { valueOf } from './e2eSuite.js';

const entry = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'standInServer.mjs');

async function negotiated(client: Client): Promise<string | null> {
  const session = valueOf<Record<string, any>>(await client.callTool({ name: 'binary_session', arguments: {} }));
  return session['protocol'].negotiated_version as string | null;
}

/** Sends raw JSON-RPC lines to a fresh server and returns the answer to each id. */
async function rawExchange(messages: Array<Record<string, unknown>>, ids: number[]): Promise<Map<number, any>> {
  const child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'ignore'] });
  const answers = new Map<number, any>();
  let buffer = '';
  child.stdout.setEncoding('utf8');
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to all of ${ids.join(', ')}`)), 30_000);
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, index)) as { id?: number };
        buffer = buffer.slice(index + 1);
        if (typeof message.id === 'number') answers.set(message.id, message);
        if (message.id === 1) for (const next of messages.slice(1)) child.stdin.write(`${JSON.stringify(next)}\n`);
        if (ids.every((id) => answers.has(id))) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
  });
  child.stdin.write(`${JSON.stringify(messages[0])}\n`);
  try {
    await done;
  } finally {
    child.kill('SIGTERM');
  }
  return answers;
}

describe('@rea/server protocol version negotiation', () => {
  it('should negotiate the newest version an SDK 2.3.1 client offers by default and report it', async () => {
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' }));
    try {
      expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
      expect(client.getNegotiatedProtocolVersion()).toBe(LATEST_PROTOCOL_VERSION);
      expect(await negotiated(client)).toBe(LATEST_PROTOCOL_VERSION);
    } finally {
      await client.close();
    }
  });

  it('should let a client that probes the 2026-07-28 era fall back to the 2025 handshake', async () => {
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(LATEST_PROTOCOL_VERSION);
      expect(await negotiated(client)).toBe(LATEST_PROTOCOL_VERSION);
    } finally {
      await client.close();
    }
  });

  it('should refuse a second initialize on stdio with -32600 and keep the version the first negotiated', async () => {
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const again = client.request({
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'again', version: '2' } },
      });
      await expect(again).rejects.toMatchObject({ code: -32600 });
      await expect(again).rejects.toThrow(/already initialized/);
      // The connection goes on, with the version and the client of its one handshake.
      const session = valueOf<Record<string, any>>(await client.callTool({ name: 'binary_session', arguments: {} }));
      expect(session['protocol']).toEqual({
        negotiated_version: '2025-11-25',
        client: { name: 'rea-e2e', version: '1.0.0' },
      });
    } finally {
      await client.close();
    }
  });

  it('should answer server/discover with method not found and report an older requested version as negotiated', async () => {
    const older = SUPPORTED_PROTOCOL_VERSIONS.find((version) => version < LATEST_PROTOCOL_VERSION)!;
    expect(older).toBe('2025-06-18');
    const answers = await rawExchange(
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: older, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'server/discover', params: {} },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'binary_session', arguments: {} } },
      ],
      [1, 2, 3],
    );
    expect(answers.get(1)).toHaveProperty('result');
    expect(answers.get(3)).toHaveProperty('result');
    expect(answers.get(1).result.protocolVersion).toBe(older);
    expect(answers.get(2).error.code).toBe(-32601);
    const session = answers.get(3).result.structuredContent as Record<string, any>;
    expect(session['protocol']).toEqual({ negotiated_version: older, client: { name: 'raw', version: '1' } });
  });

  it('should leave resource links out of results for a client of a protocol that has none', async () => {
    const initialize = (id: number, protocolVersion: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'older', version: '1' } },
    });
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'slow_count', arguments: { steps: 1, delay_ms: 0 } },
    };
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    for (const [version, types] of [
      ['2024-11-05', ['text']],
      ['2025-03-26', ['text']],
      ['2025-06-18', ['text', 'resource_link']],
    ] as const) {
      const answers = await rawExchange([initialize(1, version), initialized, call], [1, 2]);
      expect(answers.get(1).result.protocolVersion).toBe(version);
      const result = answers.get(2).result;
      expect(result.content.map((item: { type: string }) => item.type)).toEqual(types);
      expect(result.structuredContent.normalized_result).toEqual({ counted: 1 });
    }
  });
});

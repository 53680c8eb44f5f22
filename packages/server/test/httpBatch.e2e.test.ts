/* eslint-disable @typescript-eslint/no-explicit-any -- answers are JSON explored by path in assertions */
// JSON-RPC batches over Streamable HTTP follow the negotiated protocol version. 2025-03-26 lets a POST body
// be an array of messages; 2025-06-18 removed batching ("Remove support for JSON-RPC batching", its
// changelog), and its transport wants the body to be a single message, as does 2025-11-25. A batch on a
// session of those versions is an invalid request: HTTP 400 with a JSON-RPC -32600 error, and none of its
// messages is handled.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { valueOf } from './e2eSuite.js';
import { standInEntry, startHttpEntry } from './httpFixture.js';

interface Answer {
  status: number;
  contentType: string;
  sessionId: string | undefined;
  text: string;
}

function post(url: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            sessionId: res.headers['mcp-session-id'] as string | undefined,
            text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The JSON-RPC messages of an answer: its JSON body, or the data of each event of its event stream. */
function messagesOf(answer: Answer): any[] {
  if (answer.contentType.startsWith('application/json')) return [JSON.parse(answer.text)];
  return answer.text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

const initialize = (id: number, protocolVersion: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** Opens a session that negotiated `version` with raw requests; returns the headers its requests carry. */
async function session(url: string, version: string): Promise<Record<string, string>> {
  const answer = await post(url, {}, initialize(1, version));
  expect(answer.status).toBe(200);
  expect(messagesOf(answer)[0].result.protocolVersion).toBe(version);
  const headers = { 'mcp-session-id': answer.sessionId!, 'mcp-protocol-version': version };
  expect((await post(url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return headers;
}

function expectBatchRefused(answer: Answer, version: string): void {
  expect(answer.status).toBe(400);
  const [message] = messagesOf(answer);
  expect(message).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  expect(message.error.message).toContain(version);
}

describe('@rea/server over Streamable HTTP: JSON-RPC batches by protocol version', () => {
  let server: Awaited<ReturnType<typeof startHttpEntry>>;
  let url: string;
  beforeAll(async () => {
    server = await startHttpEntry();
    url = server.line['url'] as string;
  });
  afterAll(async () => {
    await server.stop();
  });

  it('should refuse a batch with -32600 on a session an SDK client opened with 2025-11-25, and go on serving it', async () => {
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const headers = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' };
      expectBatchRefused(await post(url, headers, [ping(2), ping(3)]), '2025-11-25');
      // A batch of one message is a batch all the same.
      expectBatchRefused(await post(url, headers, [ping(4)]), '2025-11-25');
      const reported = valueOf<Record<string, any>>(await client.callTool({ name: 'binary_session', arguments: {} }));
      expect(reported['protocol'].negotiated_version).toBe('2025-11-25');
    } finally {
      await client.close();
    }
  });

  it('should refuse a batch with -32600 on a 2025-06-18 session, handling none of its messages', async () => {
    const headers = await session(url, '2025-06-18');
    const refused = await post(url, headers, [call(2, 'open_binary', { path: standInEntry }), ping(3)]);
    expectBatchRefused(refused, '2025-06-18');
    expect(messagesOf(await post(url, headers, ping(4)))).toEqual([{ jsonrpc: '2.0', id: 4, result: {} }]);
    // The open_binary of the refused batch did not run: the session has no target.
    const [after] = messagesOf(await post(url, headers, call(5, 'binary_session')));
    expect(after.result.structuredContent.protocol.negotiated_version).toBe('2025-06-18');
    expect(after.result.structuredContent.target).toBeNull();
  });

  it('should answer every request of a batch on a 2025-03-26 session, whose protocol has batches', async () => {
    const headers = await session(url, '2025-03-26');
    const answer = await post(url, headers, [ping(2), call(3, 'binary_session')]);
    expect(answer.status).toBe(200);
    const byId = new Map(messagesOf(answer).map((message) => [message.id, message]));
    expect(byId.get(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(byId.get(3).result.structuredContent.protocol.negotiated_version).toBe('2025-03-26');
  });

  it('should refuse an initialize sent as a batch for a version without batches, and accept it for 2025-03-26', async () => {
    const refused = await post(url, {}, [initialize(1, '2025-11-25')]);
    expectBatchRefused(refused, '2025-11-25');
    expect(refused.sessionId).toBeUndefined();
    const accepted = await post(url, {}, [initialize(1, '2025-03-26')]);
    expect(accepted.status).toBe(200);
    expect(accepted.sessionId).toEqual(expect.any(String));
    expect(messagesOf(accepted)[0].result.protocolVersion).toBe('2025-03-26');
  });
});

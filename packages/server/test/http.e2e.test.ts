/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describeTransportSuite, processGone, recordInbound, valueOf } from './e2eSuite.js';
import { standInEntry, startHttpEntry } from './httpFixture.js';

async function connectTo(url: string): Promise<Client> {
  return (await connectRecorded(url)).client;
}

async function connectRecorded(url: string): Promise<{ client: Client; received: Array<Record<string, any>> }> {
  const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, received: recordInbound(transport) };
}

let shared: Awaited<ReturnType<typeof startHttpEntry>>;

describeTransportSuite('Streamable HTTP', async () => {
  shared = await startHttpEntry();
  const { client, received } = await connectRecorded(shared.line['url'] as string);
  return {
    client,
    received,
    close: async () => {
      await client.close();
      await shared.stop();
    },
  };
});

function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string }> {
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
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('@rea/server over Streamable HTTP: binding and DNS-rebinding protection', () => {
  let server: Awaited<ReturnType<typeof startHttpEntry>>;
  let url: string;
  beforeAll(async () => {
    server = await startHttpEntry();
    url = server.line['url'] as string;
  });
  afterAll(async () => {
    await server.stop();
  });

  it('should bind loopback by default', () => {
    expect(new URL(url).hostname).toBe('127.0.0.1');
  });

  it('should refuse a request whose Host is not loopback with 403', async () => {
    const refused = await post(url, { host: 'rebind.example:80' }, initialize);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Invalid Host');
  });

  it('should refuse a request from a foreign Origin with 403 and accept a loopback Origin', async () => {
    const refused = await post(url, { origin: 'http://rebind.example' }, initialize);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Invalid Origin');
    const accepted = await post(url, { origin: 'http://localhost:5173' }, initialize);
    expect(accepted.status).toBe(200);
  });

  it('should refuse an unknown session id with 404 and a session-less non-initialize request with 400', async () => {
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await post(url, { 'mcp-session-id': 'no-such-session' }, list)).status).toBe(404);
    expect((await post(url, {}, list)).status).toBe(400);
  });

  it('should give each session its own ledger', async () => {
    const first = await connectTo(url);
    const second = await connectTo(url);
    try {
      valueOf(await first.callTool({ name: 'open_binary', arguments: { path: standInEntry } }));
      valueOf(await first.callTool({ name: 'describe_target', arguments: {} }));
      const mine = valueOf<Record<string, any>>(await first.callTool({ name: 'get_evidence_bundle', arguments: {} }));
      const theirs = valueOf<Record<string, any>>(
        await second.callTool({ name: 'get_evidence_bundle', arguments: {} }),
      );
      expect(mine['records']).toHaveLength(1);
      expect(theirs['records']).toEqual([]);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('should close the provider and its processes when the client ends the session (DELETE)', async () => {
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    valueOf(await client.callTool({ name: 'open_binary', arguments: { path: standInEntry } }));
    const session = valueOf<Record<string, any>>(await client.callTool({ name: 'binary_session', arguments: {} }));
    const pid = session['process_lineage'].snapshots[0].observations[0].launcher.pid as number;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await transport.terminateSession();
    expect(await processGone(pid)).toBe(true);
    await client.close();
  });

  it('should refuse a non-loopback bind unless explicitly allowed', async () => {
    const refused = await startHttpEntry(['0.0.0.0']);
    expect(refused.line['error']).toMatchObject({
      code: 'access_denied',
      details: { resource: 'bind', host: '0.0.0.0' },
    });
    // The library's advice names its own options, not a command line's.
    const remediation = String((refused.line['error'] as { remediation?: unknown }).remediation);
    expect(remediation).toContain('allowNonLoopback');
    expect(remediation).toContain('allowedHosts');
    expect(remediation).not.toContain('rea mcp');
    await refused.stop();
  });
});

describe('@rea/server over Streamable HTTP: sessions abandoned without DELETE', () => {
  // Generous against scheduling delays on a loaded machine: requests below come far more often than this.
  const IDLE_MS = 1500;
  let server: Awaited<ReturnType<typeof startHttpEntry>>;
  let url: string;
  beforeAll(async () => {
    server = await startHttpEntry([], { REA_MCP_HTTP_SESSION_IDLE_MS: String(IDLE_MS) });
    url = server.line['url'] as string;
  });
  afterAll(async () => {
    await server.stop();
  });

  it('should keep a session alive while requests keep coming, however long it lasts', async () => {
    const client = await connectTo(url);
    try {
      const started = Date.now();
      while (Date.now() - started < IDLE_MS * 3) {
        valueOf(await client.callTool({ name: 'binary_session', arguments: {} }));
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 4));
      }
      valueOf(await client.callTool({ name: 'binary_session', arguments: {} }));
    } finally {
      await client.close();
    }
  });

  it('should close the provider, clear the ledger and forget the session once it has been idle', async () => {
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    const id = transport.sessionId!;
    valueOf(await client.callTool({ name: 'open_binary', arguments: { path: standInEntry } }));
    valueOf(await client.callTool({ name: 'describe_target', arguments: {} }));
    const bundle = valueOf<Record<string, any>>(await client.callTool({ name: 'get_evidence_bundle', arguments: {} }));
    expect(bundle['records']).toHaveLength(1);
    const session = valueOf<Record<string, any>>(await client.callTool({ name: 'binary_session', arguments: {} }));
    const pid = session['process_lineage'].snapshots[0].observations[0].launcher.pid as number;
    expect(() => process.kill(pid, 0)).not.toThrow();

    // No request (and no DELETE) from here on: the stand-in's process goes with the session.
    expect(await processGone(pid)).toBe(true);
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list' };
    const after = await post(url, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, list);
    expect(after.status).toBe(404);
    type Line = { message: string; data?: Record<string, unknown> };
    const logged = (): Line[] =>
      server
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Line);
    const idleAt = (lines: Line[]) =>
      lines.findIndex(
        (line) => line.message === 'HTTP session closed after going idle' && line.data?.['session'] === id,
      );
    // The connection's own close (provider closed, ledger cleared) is logged once its cleanup has
    // finished, which may be after the stand-in's process is gone: wait for that line, after the idle one.
    const closedAfterIdle = (lines: Line[]): Line | undefined =>
      lines
        .slice(idleAt(lines) + 1)
        .find((line) => line.message === 'connection closed' && line.data?.['transport'] === 'http');
    const deadline = Date.now() + 30_000;
    let lines = logged();
    while ((idleAt(lines) < 0 || closedAfterIdle(lines) === undefined) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      lines = logged();
    }
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'HTTP session closed after going idle',
        data: { session: id, idle_ms: IDLE_MS },
      }),
    );
    // The session's ledger held the describe_target record (and the binary_session ones); all were dropped.
    expect(closedAfterIdle(lines)?.data?.['cleared_records']).toBeGreaterThanOrEqual(1);
    await client.close().catch(() => undefined);
  });
});

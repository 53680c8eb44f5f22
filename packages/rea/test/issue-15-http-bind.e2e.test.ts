// `rea mcp --http 127.0.0.2:PORT` bound and printed its URL, then refused every request with 403
// "Invalid Host": a loopback bind address is an allowed Host. A non-loopback bind was refused with a
// message naming an option the command did not have; --allow-host now offers it, with every other Host
// still refused (DNS-rebinding protection).
import { describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { run } from '../../cli/test/run.js';
import { REA_BIN, startReaHttp } from './httpEntry.js';

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** POSTs initialize to 127.0.0.1:`port` with the given Host header; resolves with the status. */
function initializeWithHost(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(initialize);
  });
}

describe('issue 15: rea mcp --http bind addresses', () => {
  it('should serve an MCP client on a loopback address other than 127.0.0.1', async () => {
    const server = await startReaHttp('127.0.0.2:0');
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/mcp$/);
      const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url!)));
      expect((await client.listTools()).tools.length).toBeGreaterThan(7);
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it('should refuse a non-loopback bind with a remediation naming an option rea mcp has', async () => {
    const refused = await run(REA_BIN, ['mcp', '--http', '0.0.0.0:0']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('access_denied');
    expect(refused.stderr).toContain('rea mcp --http 0.0.0.0:PORT --allow-host <name>');
    // Advice in the command line's terms only: not the library's option names.
    expect(refused.stderr).not.toMatch(/runHttpServer|allowNonLoopback|allowedHosts/);
    const help = await run(REA_BIN, ['mcp', '--help']);
    expect(help.stdout).toContain('--allow-host <name>');
    const misplaced = await run(REA_BIN, ['mcp', '--allow-host', 'rea-test.internal']);
    expect(misplaced.code).not.toBe(0);
    expect(misplaced.stderr).toContain('--allow-host applies to --http only');
  });

  it('should accept the allowed host names on a non-loopback bind and refuse any other Host', async () => {
    const server = await startReaHttp('0.0.0.0:0', ['--allow-host', 'rea-test.internal']);
    try {
      expect(server.url).not.toBeNull();
      const port = Number(new URL(server.url!).port);
      expect(await initializeWithHost(port, `rea-test.internal:${port}`)).toBe(200);
      expect(await initializeWithHost(port, `127.0.0.1:${port}`)).toBe(200);
      expect(await initializeWithHost(port, `rebind.example:${port}`)).toBe(403);
    } finally {
      await server.stop();
    }
  });
});

// A port another program holds is not a permission problem: `rea mcp --http` says the port is in use
// and what to do, typed invalid_request; a real second listener holds the port. A request body is read
// up to the longest stdio frame (10 MiB less one byte), so that Evidence a call answered can be passed
// back over HTTP too; a longer one is answered 413.
import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { isReaError } from '@rea/evidence';
import { runHttpServer } from '../src/http.js';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('binding the HTTP server', () => {
  it('should say a port in use is in use, with what to do', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const error = await runHttpServer({
        providers: [],
        tools: [],
        package: { name: 'rea-test', version: '0.0.0-test' },
        logger: quiet,
        port,
      }).then(
        async (handle) => {
          await handle.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(isReaError(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'invalid_request',
        message: `Cannot listen on 127.0.0.1:${port}: another program is using that port.`,
        details: { reason: 'EADDRINUSE', port },
      });
      expect((error as { remediation: string }).remediation).toContain('another port');
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('should read a request body up to the stdio frame limit, and answer a longer one 413', async () => {
    const handle = await runHttpServer({
      providers: [],
      tools: [],
      package: { name: 'rea-test', version: '0.0.0-test' },
      logger: quiet,
      port: 0,
    });
    const post = (body: string) =>
      fetch(handle.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    try {
      // 6 MiB, above the 4 MiB read before: an initialize it reads (and answers for its id).
      const initialize = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'x'.repeat(6 * 1024 * 1024), version: '1' },
        },
      });
      const read = await post(initialize);
      expect(read.status).toBe(200);
      expect(await read.text()).toContain('"id":1');
      const refused = await post(
        `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"${'y'.repeat(10 * 1024 * 1024)}"}}`,
      );
      expect(refused.status).toBe(413);
      expect(await refused.text()).toContain('Request body above 10485759 bytes.');
    } finally {
      await handle.close();
    }
  });
});

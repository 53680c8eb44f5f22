// A port another program holds is not a permission problem: `rea mcp --http` says the port is in use
// and what to do, typed invalid_request; a real second listener holds the port.
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
});

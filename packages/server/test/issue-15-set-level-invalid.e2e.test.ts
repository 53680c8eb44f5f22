// logging/setLevel with an unknown level was answered -32603 with a dump of the SDK's schema; it is
// invalid params (-32602) with a short message.
import { describe, expect, it } from '@jest/globals';
import { standInEntry } from './httpFixture.js';
import { startRawStdio } from './rawStdio.js';

describe('issue 15: logging/setLevel with an unknown level', () => {
  it.each([['"loud"'], ['7'], ['null']])('should answer level %s with -32602 and a one-line message', async (level) => {
    const server = await startRawStdio(standInEntry);
    try {
      server.write(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":${level}}}\n`);
      const answer = await server.next((message) => message['id'] === 3);
      const error = answer['error'] as { code: number; message: string };
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/^Invalid params for logging\/setLevel: level .* is not one of debug, info,/);
      expect(error.message).not.toContain('\n');
      expect(error.message.length).toBeLessThan(200);
      // A valid level is still accepted.
      server.write('{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"error"}}\n');
      expect(await server.next((message) => message['id'] === 4)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    } finally {
      await server.end();
    }
  });
});

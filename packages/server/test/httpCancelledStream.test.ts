// Over Streamable HTTP a cancelled call gets no response (the cancellation says so), so the stream of
// its POST would stay open, sending keep-alive comments, for as long as the client listens. Once the
// server has the cancellation, that stream ends. (The stream's headers go out at once, so the client
// holds the call's response before any event: the call is awaited here before it is cancelled.) A real HTTP client (fetch) against a server in this
// process, with a tool that runs until it is cancelled.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { NO_EFFECTS, defineTool } from '@rea/provider-kit';
import { runHttpServer } from '../src/http.js';
import type { HttpServerHandle } from '../src/http.js';

let started = 0;
const waitsForCancel = defineTool({
  name: 'waits_for_cancel',
  title: 'Waits for cancellation (test)',
  description: 'Test tool: runs until its call is cancelled.',
  produces: 'result',
  input: z.strictObject({}),
  result: z.strictObject({ done: z.boolean() }),
  examples: [{ input: {} }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  run: (_input, context) =>
    new Promise((_resolve, reject) => {
      started += 1;
      context.signal.addEventListener('abort', () => reject(new ReaError('cancelled', 'cancelled')), { once: true });
    }),
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('a cancelled call over HTTP', () => {
  let server: HttpServerHandle;
  beforeAll(async () => {
    server = await runHttpServer({
      providers: [],
      tools: [waitsForCancel],
      package: { name: 'rea-test', version: '0.0.0-test' },
      logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      port: 0,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('should end the stream of the request it cancels', async () => {
    const post = (body: unknown, session?: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          ...HEADERS,
          ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const call = await post(
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'waits_for_cancel', arguments: {} } },
      session,
    );
    expect(call.status).toBe(200);
    const body = call.text();
    while (started === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const cancel = await post(
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'test' } },
      session,
    );
    expect(cancel.status).toBe(202);
    // Ends well before the first keep-alive comment (15 s) would come.
    const ended = await Promise.race([
      body.then((text) => ({ text })),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
    ]);
    expect(ended).not.toBeNull();
    // No response was sent for the cancelled request.
    expect(ended!.text).not.toContain('"id":7');
  }, 30_000);
});

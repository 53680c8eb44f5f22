/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// Over Streamable HTTP a large result is serialized in slices and written to the socket a chunk at a
// time with turns of the event loop between chunks, as over stdio; the client receives the exact
// result. A real HTTP connection to a server in this process (so that its event loop can be
// observed): every write of the result's response is recorded with the turn count at that moment.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ServerResponse } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { NO_EFFECTS, defineTool } from '@rea/provider-kit';
import { turnProbe } from '@rea/test-helpers';
import { runHttpServer } from '../src/http.js';
import type { HttpServerHandle } from '../src/http.js';

/** 20,000 rows of about 60 characters: well over a megabyte of result text. */
const rows = Array.from(
  { length: 20_000 },
  (_, i) => `row ${i}: "quoted" \\ text with \u00e9 and ${'x'.repeat(i % 40)}`,
);

const largeText = defineTool({
  name: 'large_text',
  title: 'Large text (test)',
  description: 'Test tool: answers a large list of strings.',
  produces: 'result',
  input: z.strictObject({}),
  result: z.strictObject({ rows: z.array(z.string()) }),
  examples: [{ input: {} }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  run: async () => ({ rows }),
});

describe('issue 15: a large HTTP response is written in chunks with turns of the event loop', () => {
  let server: HttpServerHandle;
  beforeAll(async () => {
    server = await runHttpServer({
      providers: [],
      tools: [largeText],
      package: { name: 'rea-test', version: '0.0.0-test' },
      logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      port: 0,
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('should write a large result in chunks with turns between them and deliver it whole', async () => {
    const client = new Client({ name: 'rea-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const writes: Array<{ bytes: number; turns: number; text: string }> = [];
    const probe = turnProbe();
    const original = ServerResponse.prototype.write;
    const spy = jest.spyOn(ServerResponse.prototype, 'write').mockImplementation(function (
      this: ServerResponse,
      ...args: any[]
    ) {
      const chunk = args[0] as string | Uint8Array;
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      writes.push({ bytes: Buffer.byteLength(text), turns: probe.turns(), text });
      return (original as (...a: any[]) => boolean).apply(this, args);
    });
    let result: any;
    try {
      result = await client.callTool({ name: 'large_text', arguments: {} });
    } finally {
      spy.mockRestore();
      probe.stop();
      await client.close();
    }
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content[0].text)).toEqual({ rows });
    // The writes that carried the result's event: from its `event:` line to the blank line ending it.
    const first = writes.findIndex((w) => w.text.includes('row 0:'));
    expect(writes[first]!.text.startsWith('event: message\n')).toBe(true);
    const last = writes.findIndex((w, i) => i >= first && w.text.endsWith('\n\n'));
    const event = writes.slice(first, last + 1);
    expect(event.map((w) => w.text).join('')).toMatch(/^event: message\n(id: [^\n]*\n)?data: \{[^\n]*\}\n\n$/);
    const total = event.reduce((sum, w) => sum + w.bytes, 0);
    expect(total).toBeGreaterThan(1_000_000);
    expect(event.length).toBeGreaterThan(10);
    // No write carries the whole event, and the event loop turned between consecutive writes.
    expect(Math.max(...event.map((w) => w.bytes))).toBeLessThan(total / 4);
    for (let i = 1; i < event.length; i += 1) expect(event[i]!.turns).toBeGreaterThan(event[i - 1]!.turns);
  }, 120_000);
});

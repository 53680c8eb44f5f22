// Frames with a usable id but an invalid shape were answered by nothing (stdio) or without their id
// (HTTP): the client waited for its own timeout. Each is now answered with the JSON-RPC error for its id.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { standInEntry, startHttpEntry } from './httpFixture.js';
import { startRawStdio } from './rawStdio.js';
import type { RawStdio } from './rawStdio.js';

/** [name, raw frame, expected id, expected code]: each frame is one line on stdio, one body over HTTP. */
const FRAMES: Array<[string, string, number | string | null, number]> = [
  ['method not a string', '{"jsonrpc":"2.0","id":101,"method":5}', 101, -32600],
  ['params an array', '{"jsonrpc":"2.0","id":102,"method":"ping","params":[1]}', 102, -32600],
  ['params a string', '{"jsonrpc":"2.0","id":103,"method":"ping","params":"x"}', 103, -32600],
  ['jsonrpc missing', '{"id":104,"method":"ping"}', 104, -32600],
  ['jsonrpc "1.0"', '{"jsonrpc":"1.0","id":105,"method":"ping"}', 105, -32600],
  ['a byte order mark before the JSON', '\uFEFF{"jsonrpc":"2.0","id":106,"method":"ping"}', 106, -32700],
  ['a trailing comma', '{"jsonrpc":"2.0","id":"t-107","method":"ping",}', 't-107', -32700],
  ['no JSON at all', '{not json', null, -32700],
];

describe('issue 15: invalid frames on stdio', () => {
  let server: RawStdio;
  beforeAll(async () => {
    server = await startRawStdio(standInEntry);
  });
  afterAll(async () => {
    await server.end();
  });

  it.each(FRAMES.slice(0, 7))('should answer a frame with %s with its id', async (_name, frame, id, code) => {
    server.write(`${frame}\n`);
    const answer = await server.next((message) => message['id'] === id);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
    expect(answer['result']).toBeUndefined();
  });

  it('should answer tools/call whose arguments are not an object with -32602 in one sentence', async () => {
    server.write(
      '{"jsonrpc":"2.0","id":121,"method":"tools/call","params":{"name":"binary_session","arguments":[1]}}\n',
    );
    const answer = await server.next((message) => message['id'] === 121);
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 121,
      error: {
        code: -32602,
        message: 'Invalid params: "arguments" of tools/call must be an object of the tool\'s inputs, not an array.',
      },
    });
  });

  it.each([
    [
      'initialize without params',
      '{"jsonrpc":"2.0","id":131,"method":"initialize"}',
      'Invalid params: initialize needs "params" with "protocolVersion", "capabilities" and "clientInfo".',
    ],
    [
      'initialize without capabilities',
      '{"jsonrpc":"2.0","id":132,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"a","version":"1"}}}',
      'Invalid params: "capabilities" of initialize must be an object (an empty one for none).',
    ],
    [
      'prompts/get without a name',
      '{"jsonrpc":"2.0","id":133,"method":"prompts/get","params":{}}',
      'Invalid params: prompts/get needs "params" with the prompt\'s "name" (prompts/list lists them).',
    ],
  ])('should answer %s with -32602 in one sentence, not an internal error', async (_name, frame, message) => {
    const id = (JSON.parse(frame) as { id: number }).id;
    server.write(`${frame}\n`);
    expect(await server.next((answer) => answer['id'] === id)).toEqual({
      jsonrpc: '2.0',
      id,
      error: { code: -32602, message },
    });
  });

  it('should refuse a cursor for a list answered in one page, as resources/list refuses an unknown one', async () => {
    server.write('{"jsonrpc":"2.0","id":135,"method":"tools/list","params":{"cursor":"garbage"}}\n');
    expect(await server.next((answer) => answer['id'] === 135)).toEqual({
      jsonrpc: '2.0',
      id: 135,
      error: {
        code: -32602,
        message:
          'Invalid params: unknown cursor "garbage" for tools/list, which answers in one page and gives no cursor.',
      },
    });
    server.write('{"jsonrpc":"2.0","id":136,"method":"tools/list","params":{}}\n');
    const list = await server.next((answer) => answer['id'] === 136);
    expect((list['result'] as { nextCursor?: string }).nextCursor).toBeUndefined();
  });

  it('should name a progress token that is neither a string nor an integer', async () => {
    server.write('{"jsonrpc":"2.0","id":134,"method":"ping","params":{"_meta":{"progressToken":{"x":1}}}}\n');
    expect(await server.next((answer) => answer['id'] === 134)).toMatchObject({
      error: { code: -32600, message: 'Invalid Request: "params._meta.progressToken" must be a string or an integer.' },
    });
  });

  it('should answer a line that is not JSON, and an array, with id null', async () => {
    const before = server.lines.length;
    server.write('{not json\n[1,2,3]\n');
    const parse = await server.next(
      (message) => message['id'] === null && (message['error'] as { code: number }).code === -32700,
    );
    expect((parse['error'] as { message: string }).message).toMatch(/^Parse error/);
    const batch = await server.next(
      (message) => message['id'] === null && (message['error'] as { code: number }).code === -32600,
    );
    expect((batch['error'] as { message: string }).message).toMatch(/batch/);
    expect(server.lines.length - before).toBe(2);
  });

  it('should answer a line above the frame limit once and keep the connection', async () => {
    server.write(`${'x'.repeat(11 * 1024 * 1024)}\n`);
    const answer = await server.next((message) =>
      String((message['error'] as { message?: string } | undefined)?.message).includes('longer than'),
    );
    expect(answer).toMatchObject({ id: null, error: { code: -32600 } });
    server.write('{"jsonrpc":"2.0","id":199,"method":"ping"}\n');
    expect(await server.next((message) => message['id'] === 199)).toEqual({ jsonrpc: '2.0', id: 199, result: {} });
    for (const line of server.lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe('2.0');
  });

  it('should answer a request above the frame limit for the id at its start, so its caller stops waiting', async () => {
    // The id comes after a nested "id" member and a string holding one, and before 11 MiB of params.
    const padding = 'a'.repeat(11 * 1024 * 1024);
    server.write(
      `{"jsonrpc":"2.0","_meta":{"id":5,"note":"\\",\\"id\\":6"},"id":"big-77","method":"tools/call","params":{"name":"binary_session","arguments":{"x":"${padding}"}}}\n`,
    );
    const answer = await server.next((message) => message['id'] === 'big-77');
    expect(answer).toMatchObject({ id: 'big-77', error: { code: -32600 } });
    expect(String((answer['error'] as { message: string }).message)).toContain('longer than');
    server.write('{"jsonrpc":"2.0","id":200,"method":"ping"}\n');
    expect(await server.next((message) => message['id'] === 200)).toEqual({ jsonrpc: '2.0', id: 200, result: {} });
  });
});

function post(url: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }),
        );
      },
    );
    req.on('error', reject);
    req.end(Buffer.from(body, 'utf8'));
  });
}

describe('issue 15: invalid frames over Streamable HTTP', () => {
  let server: Awaited<ReturnType<typeof startHttpEntry>>;
  beforeAll(async () => {
    server = await startHttpEntry();
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(FRAMES)('should answer a body with %s with 400 and the error for its id', async (_name, frame, id, code) => {
    const answer = await post(server.line['url'] as string, frame);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
  });

  it('should name the invalid member of a batch', async () => {
    const answer = await post(
      server.line['url'] as string,
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":7}]',
    );
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ id: null, error: { code: -32600 } });
    expect((answer.json['error'] as { message: string }).message).toMatch(
      /^Batch member 1: .*"method" must be a string/,
    );
    const empty = await post(server.line['url'] as string, '[]');
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/empty batch/) },
    });
  });
});

// How long the built `rea mcp` (stdio) keeps a client waiting while it answers a large result: one
// inspect_artifact call, and binary_session calls sent one after another (the next as soon as the
// previous is answered) until the inventory is answered. The longest round trip is what a client
// waits at worst meanwhile: a stall of the server's event loop, or an answer that follows a large
// frame on the pipe (frames do not interleave, so it waits for that frame's transfer).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const bin = join(dirname(createRequire(import.meta.url).resolve('rea-mcp/package.json')), 'dist', 'bin.cjs');

/** Lines above this many bytes are parsed after the round trips. */
const LARGE = 64 * 1024;

/** The id of a JSON-RPC response line, read from its first or last bytes (where the SDK writes it). */
function idOf(line) {
  const ends = `${line.subarray(0, 200).toString('utf8')}\n${line.subarray(-200).toString('utf8')}`;
  const found = /"id":\s*(\d+)/.exec(ends);
  if (!found) throw new Error('no id at either end of a large response line');
  return Number(found[1]);
}

/** Runs inspect_artifact on `path` through a fresh `rea mcp`; returns the binary_session round trips meanwhile. */
export async function serverStalls(path) {
  const child = spawn(process.execPath, [bin, 'mcp'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  // Chunks are kept until a newline arrives: only the new chunk is searched.
  let pending = [];
  child.stdout.on('data', (chunk) => {
    for (let start = 0, end = chunk.indexOf(10); ; end = chunk.indexOf(10, start)) {
      if (end < 0) {
        if (start < chunk.length) pending.push(chunk.subarray(start));
        return;
      }
      const line = Buffer.concat([...pending, chunk.subarray(start, end)]);
      pending = [];
      start = end + 1;
      // A large answer is parsed once the round trips are over: parsing megabytes here would hold this
      // process's loop, and the round trips measure the server's.
      const large = line.length > LARGE;
      const message = large ? null : JSON.parse(line.toString('utf8'));
      const id = large ? idOf(line) : message.id;
      waiting.get(id)?.({ message, line, bytes: line.length });
      waiting.delete(id);
    }
  });
  let next = 1;
  const request = (method, params) => {
    const id = next++;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise((resolve) => waiting.set(id, resolve));
  };
  try {
    await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'rea-bench-responsiveness', version: '0' },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    // The first call loads the call path: not what is measured.
    await request('tools/call', { name: 'binary_session', arguments: {} });
    let done = false;
    const heavy = request('tools/call', { name: 'inspect_artifact', arguments: { path } }).then((answer) => {
      done = true;
      return answer;
    });
    const trips = [];
    while (!done) {
      const started = performance.now();
      // Every round trip counts, the one under way when the inventory is answered too.
      await request('tools/call', { name: 'binary_session', arguments: {} });
      trips.push(performance.now() - started);
    }
    const answer = await heavy;
    const message = answer.message ?? JSON.parse(answer.line.toString('utf8'));
    const { bytes } = answer;
    // The last round trip is answered after the large answer, on the same pipe or connection pool.
    const last = trips.at(-1) ?? 0;
    trips.sort((a, b) => a - b);
    return {
      outcome: message.result?.isError ? JSON.parse(message.result.content[0].text).error.code : 'ok',
      bytes,
      pings: trips.length,
      longest: trips.at(-1) ?? 0,
      last,
      p99: trips[Math.min(trips.length - 1, Math.floor(trips.length * 0.99))] ?? 0,
    };
  } finally {
    child.kill();
  }
}

/** The same over Streamable HTTP: a fresh `rea mcp --http 127.0.0.1:0`, one session, requests as POSTs. */
export async function httpServerStalls(path) {
  const child = spawn(process.execPath, [bin, 'mcp', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let text = '';
      child.stderr.on('data', (chunk) => {
        text += chunk;
        const found = /"url":"([^"]+)"/.exec(text) ?? /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text);
        if (found) resolve(found[1]);
      });
      child.once('exit', (code) => reject(new Error(`rea mcp --http exited (${code}): ${text.slice(0, 500)}`)));
    });
    let session = null;
    let next = 1;
    const post = async (body) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
      session ??= response.headers.get('mcp-session-id');
      const text = await response.text();
      // As over stdio: a large answer is parsed after the round trips.
      if (text.length > LARGE) return { text, bytes: Buffer.byteLength(text) };
      return parsed(text);
    };
    const parsed = (text) => {
      const data = text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .filter((line) => line.length > 0);
      return { message: data.length ? JSON.parse(data.at(-1)) : null, bytes: Buffer.byteLength(text) };
    };
    const request = (method, params) => post({ jsonrpc: '2.0', id: next++, method, params });
    await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'rea-bench-responsiveness', version: '0' },
    });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await request('tools/call', { name: 'binary_session', arguments: {} });
    let done = false;
    const heavy = request('tools/call', { name: 'inspect_artifact', arguments: { path } }).then((answer) => {
      done = true;
      return answer;
    });
    const trips = [];
    while (!done) {
      const started = performance.now();
      await request('tools/call', { name: 'binary_session', arguments: {} });
      trips.push(performance.now() - started);
    }
    const answer = await heavy;
    const { message, bytes } = answer.text === undefined ? answer : parsed(answer.text);
    // The last round trip is answered after the large answer, on the same pipe or connection pool.
    const last = trips.at(-1) ?? 0;
    trips.sort((a, b) => a - b);
    return {
      outcome: message?.result?.isError ? JSON.parse(message.result.content[0].text).error.code : 'ok',
      bytes,
      pings: trips.length,
      longest: trips.at(-1) ?? 0,
      last,
      p99: trips[Math.min(trips.length - 1, Math.floor(trips.length * 0.99))] ?? 0,
    };
  } finally {
    child.kill();
  }
}

// A minimal MCP client over a child's stdio (raw JSON-RPC lines), for servers the bench starts once.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Peak resident set (VmHWM) of a live process, in bytes, or null where /proc does not say. */
export function peakRss(pid) {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Starts `command` as an MCP server on stdio; `call` answers a tools/call result. */
export function stdioServer(command, args, env = {}) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const pending = new Map();
  // The bytes of the line being received, chunk by chunk: only each new chunk is searched for its end, so
  // a reply of a few megabytes (arriving in many small chunks) costs its length once, not once a chunk.
  let partial = [];
  let stderr = '';
  let nextId = 1;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const receive = (line) => {
    const text = line.toString('utf8').trim();
    const message = text ? JSON.parse(text) : null;
    if (message?.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  };
  child.stdout.on('data', (chunk) => {
    let start = 0;
    for (let index = chunk.indexOf(10); index >= 0; index = chunk.indexOf(10, start)) {
      partial.push(chunk.subarray(start, index));
      receive(partial.length === 1 ? partial[0] : Buffer.concat(partial));
      partial = [];
      start = index + 1;
    }
    if (start < chunk.length) partial.push(chunk.subarray(start));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  exited.then(() => {
    for (const answer of pending.values()) answer({ error: { message: `server exited: ${stderr}` } });
  });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (m) =>
        m.error ? reject(new Error(`${method}: ${JSON.stringify(m.error)}`)) : resolve(m.result),
      );
      send({ id, method, params });
    });
  return {
    child,
    async initialize() {
      const clientInfo = { name: 'rea-bench', version: '0' };
      await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo });
      send({ method: 'notifications/initialized' });
    },
    call: (name, args) => request('tools/call', { name, arguments: args }),
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

import { chmod } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import { BRIDGE_RESULTS, HelloSchema, MAX_LINE_BYTES, ResponseSchema } from './protocol.js';
import type { BridgeHello, BridgeMethod, BridgeResult } from './protocol.js';

/** The REA side of one engine's bridge: a listening socket and, once the engine is in, its connection. */
export interface BridgeChannel {
  /** Resolves with the first hello that presents the token; rejects when the channel breaks first. */
  readonly hello: Promise<BridgeHello>;
  /** Sends one request and resolves with its validated result. */
  request<M extends BridgeMethod>(method: M, params: JsonObject, signal: AbortSignal): Promise<BridgeResult<M>>;
  /** Why the channel broke (the connection ended or the engine broke the protocol), or null. */
  failure(): ReaError | null;
  /** Called once when the channel breaks. */
  onBreak(listener: (error: ReaError) => void): void;
  /** Closes the connection and the listening socket. */
  close(): Promise<void>;
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Splits a socket's data into lines, refusing one longer than {@link MAX_LINE_BYTES}. */
function lines(socket: Socket, onLine: (line: string) => void, onOverflow: () => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim()) onLine(line);
      newline = buffered.indexOf('\n');
    }
    if (Buffer.byteLength(buffered) > MAX_LINE_BYTES) onOverflow();
  });
}

interface Pending {
  method: BridgeMethod;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Listens on `path` (a Unix socket, made mode 0600, inside an owned 0700 directory) for the engine's
 * bridge. Only a connection whose first line is a hello carrying `token` is accepted; any other is
 * dropped, and once one is in, no other is. Answers that break the protocol break the channel.
 */
export async function listenBridge(path: string, token: string, engine: string): Promise<BridgeChannel> {
  const pending = new Map<number, Pending>();
  /** Requests the caller stopped waiting for: their late answers are dropped, not violations. */
  const abandoned = new Set<number>();
  const listeners: Array<(error: ReaError) => void> = [];
  let nextId = 1;
  let connection: Socket | null = null;
  let broken: ReaError | null = null;
  let settleHello: { resolve: (h: BridgeHello) => void; reject: (e: unknown) => void } | null = null;
  const hello = new Promise<BridgeHello>((resolve, reject) => {
    settleHello = { resolve, reject };
  });
  hello.catch(() => undefined);

  const breakWith = (reason: string, message: string, extra: JsonObject = {}) => {
    if (broken) return;
    broken = new ReaError('execution_failure', message, {
      remediation: 'Call close_binary, then open_binary with the same path and provider to start the engine afresh.',
      details: { reason, engine, ...extra },
    });
    settleHello?.reject(broken);
    for (const entry of pending.values()) entry.reject(broken);
    pending.clear();
    connection?.destroy();
    for (const listener of listeners.splice(0)) listener(broken);
  };
  const violation = (what: string) =>
    breakWith('bridge-protocol', `The ${engine} bridge answered outside the protocol: ${what}.`);

  const onAnswer = (line: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return violation('a line that is not JSON');
    }
    const response = ResponseSchema.safeParse(parsed);
    if (!response.success) return violation('a line that is not a response');
    if (abandoned.delete(response.data.id)) return;
    const entry = pending.get(response.data.id);
    if (!entry) return violation(`an answer to request ${response.data.id}, which is not pending`);
    pending.delete(response.data.id);
    if ('error' in response.data) {
      const { code, message } = response.data.error;
      entry.reject(
        new ReaError(code === 'not_found' ? 'not_found' : 'execution_failure', `${engine}: ${message}`, {
          details: { engine, method: entry.method, engine_error: code },
        }),
      );
      return;
    }
    const result = BRIDGE_RESULTS[entry.method].safeParse(response.data.result);
    if (!result.success) return violation(`a ${entry.method} result that does not match its schema`);
    entry.resolve(result.data);
  };

  const server: Server = createServer((socket) => {
    if (connection || broken) {
      socket.destroy();
      return;
    }
    let authenticated = false;
    lines(
      socket,
      (line) => {
        if (authenticated) return onAnswer(line);
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          parsed = null;
        }
        const candidate = HelloSchema.safeParse(parsed);
        // Anything but a hello with the session's token is dropped; the engine may still connect.
        if (!candidate.success || !sameToken(candidate.data.token, token) || connection) {
          socket.destroy();
          return;
        }
        authenticated = true;
        connection = socket;
        settleHello?.resolve(candidate.data);
      },
      () => (authenticated ? violation('a line longer than the protocol allows') : socket.destroy()),
    );
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (socket === connection) breakWith('bridge-closed', `The ${engine} bridge closed its connection.`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);

  return {
    hello,
    failure: () => broken,
    onBreak: (listener) => {
      if (broken) listener(broken);
      else listeners.push(listener);
    },
    request: <M extends BridgeMethod>(method: M, params: JsonObject, signal: AbortSignal) =>
      new Promise<BridgeResult<M>>((resolve, reject) => {
        throwIfAborted(signal, method);
        if (broken) return reject(broken);
        if (!connection) {
          return reject(new ReaError('internal', `The ${engine} bridge is not connected.`, { details: { engine } }));
        }
        const id = nextId++;
        const onAbort = () => {
          pending.delete(id);
          abandoned.add(id);
          reject(new ReaError('cancelled', `Cancelled during ${method}.`, { details: { phase: method, engine } }));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        pending.set(id, {
          method,
          resolve: (value) => {
            signal.removeEventListener('abort', onAbort);
            resolve(value as BridgeResult<M>);
          },
          reject: (error) => {
            signal.removeEventListener('abort', onAbort);
            reject(error);
          },
        });
        connection.write(`${JSON.stringify({ id, method, params })}\n`);
      }),
    close: async () => {
      connection?.destroy();
      settleHello?.reject(new ReaError('cancelled', 'The bridge was closed.', { details: { engine } }));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

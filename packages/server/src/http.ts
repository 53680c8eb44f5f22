import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { ReaError } from '@rea/evidence';
import { batchRefusal, hasBatches, requestedVersion } from './batches.js';
import { frameRefusal, parseFrame } from './frames.js';
import type { FrameId } from './frames.js';
import { sendLargeEventsInSlices, writeResponseBody } from './largeEvents.js';
import { createConnection } from './server.js';
import type { Connection, ShutdownReport } from './server.js';
import { runtimeOf } from './runtime.js';
import type { ReaServerOptions } from './runtime.js';

/** Options of {@link runHttpServer}. */
export type HttpServerOptions = ReaServerOptions & {
  /** Address to bind; loopback (`127.0.0.1`) by default. */
  host?: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Allows a non-loopback bind; without it such a bind is refused with `access_denied`. */
  allowNonLoopback?: boolean;
  /**
   * Host names (and Origin host names) accepted besides the loopback names and the bound address, e.g.
   * the name clients use to reach a non-loopback bind. Requests naming any other Host are refused (403),
   * which keeps the DNS-rebinding protection.
   */
  allowedHosts?: readonly string[];
  /** The MCP endpoint path; `/mcp` by default. */
  path?: string;
  /** Largest request body read, in bytes (default 10 MiB less one byte, the longest frame read on stdio). */
  maxRequestBytes?: number;
};

/** A running Streamable HTTP server. */
export interface HttpServerHandle {
  /** The bound address. */
  host: string;
  port: number;
  /** The MCP endpoint URL. */
  url: string;
  /**
   * Cancels every session's calls in flight and waits (bounded) for their cleanup, closes every
   * session (providers, ledgers) and stops listening; resolves with what it cancelled and left.
   */
  close(): Promise<ShutdownReport>;
}

/** One live MCP session of the HTTP server: its transport, its connection, and its idle bookkeeping. */
interface HttpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  connection: Connection;
  /** POST requests of this session in progress (their responses still open). */
  active: number;
  /** Closes the session when it fires; armed only while no request is in progress. */
  timer: NodeJS.Timeout | null;
  /** The open responses of this session's requests in progress, by JSON-RPC id (JSON text). */
  calls: Map<string, ServerResponse>;
}

/** The JSON-RPC id of a single request (a message with a method and an id), as JSON text; else null. */
function requestKey(message: unknown): string | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const { id, method } = message as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? JSON.stringify(id) : null;
}

/** The request a `notifications/cancelled` message names, as JSON text; else null. */
function cancelledKey(message: unknown): string | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const { method, params } = message as { method?: unknown; params?: { requestId?: unknown } };
  if (method !== 'notifications/cancelled') return null;
  const id = params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : null;
}

/** True for loopback names and addresses: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.[0-9]{1,3}){3}$/.test(bare) || bare === '::ffff:127.0.0.1';
}

/** `host` as a URL spells its hostname (IPv6 in brackets, normalised), the form Host checks compare. */
function urlHostname(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '');
  try {
    return new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}`).hostname;
  } catch {
    return bare.toLowerCase();
  }
}

function rpcError(res: ServerResponse, status: number, code: number, message: string, id: FrameId | null = null): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  res.writeHead(response.status, headers);
  // An event stream's headers go out now, not with its first event: a client learns the call is under
  // way (and can cancel it) before any progress or keep-alive comment is written.
  if (headers['content-type']?.startsWith('text/event-stream')) res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader() as ReadableStreamDefaultReader<unknown>;
  res.on('close', () => void reader.cancel().catch(() => undefined));
  try {
    await writeResponseBody(reader, res);
  } catch {
    // The client went away mid-stream.
  }
  res.end();
}

/**
 * Serves MCP over Streamable HTTP. Binds loopback by default and refuses a non-loopback address
 * unless `allowNonLoopback` is set; validates `Host` and `Origin` on every request (DNS-rebinding
 * protection; refused with 403). Each MCP session (initialize → mcp-session-id) is its own connection
 * with its own session and ledger; DELETE ends it, and so does going `mcpHttpSessionIdleMs` of the
 * settings (REA_MCP_HTTP_SESSION_IDLE_MS, 30 minutes by default) without any request: the provider is
 * closed, the ledger cleared, and the session id is then unknown (404).
 */
export async function runHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const extraHosts = (options.allowedHosts ?? []).map(urlHostname);
  if (!isLoopbackHost(host) && options.allowNonLoopback !== true) {
    const shown = host.includes(':') ? `[${host}]` : host;
    throw new ReaError('access_denied', `Refusing to bind ${shown}: it is not a loopback address.`, {
      details: { resource: 'bind', host, reason: 'non-loopback' },
      remediation:
        'Bind a loopback address (127.0.0.1 is the default). To serve other machines, set allowNonLoopback ' +
        'and list in allowedHosts each host name clients will use to reach this one. Requests naming any ' +
        'other Host are refused.',
    });
  }
  const runtime = runtimeOf(options);
  const {
    STDIO_DEFAULT_MAX_BUFFER_SIZE,
    SUPPORTED_PROTOCOL_VERSIONS,
    WebStandardStreamableHTTPServerTransport: HttpTransport,
    isInitializeRequest,
    parseJSONRPCMessage,
    localhostAllowedHostnames,
    localhostAllowedOrigins,
    validateHostHeader,
    validateOriginHeader,
  } = await import('@modelcontextprotocol/server');
  const path = options.path ?? '/mcp';
  // As on stdio, whose read buffer the SDK fixes at 10 MiB: Evidence a call answered (up to the response
  // budget) can be passed back to a comparison tool over either transport.
  const maxRequestBytes = options.maxRequestBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE - 1;
  // The loopback names, the bound address itself (127.0.0.2 is as loopback as 127.0.0.1; a named
  // non-loopback address was chosen explicitly) and the names the caller allowed. A wildcard bind
  // (0.0.0.0, ::) is no name a client sends, so it adds nothing.
  const bound = urlHostname(host);
  const wildcard = bound === '0.0.0.0' || bound === '[::]';
  const named = [...(wildcard ? [] : [bound]), ...extraHosts];
  const allowedHosts = [...new Set([...localhostAllowedHostnames(), ...named])];
  const allowedOrigins = [...new Set([...localhostAllowedOrigins(), ...named])];
  const sessions = new Map<string, HttpSession>();
  const idleMs = runtime.config.mcpHttpSessionIdleMs;
  // A session abandoned without DELETE is closed (provider, ledger) once no request has reached it for
  // `idleMs`. A POST in progress (a long tool call streaming its answer) keeps it alive; the standalone
  // GET event stream a client may hold open does not (it is a passive channel, closed with the session).
  const expire = (id: string, entry: HttpSession): void => {
    if (sessions.get(id) !== entry) return;
    sessions.delete(id);
    // Local log only: a session id is the handle on a session and is not sent to other clients.
    runtime.localLogger.info('HTTP session closed after going idle', { session: id, idle_ms: idleMs });
    void entry.connection.close();
  };
  const armIdle = (id: string, entry: HttpSession): void => {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = entry.active > 0 ? null : setTimeout(() => expire(id, entry), idleMs);
    entry.timer?.unref();
  };
  // A batch is answered only for a protocol version that has batches (the one the session negotiated, or
  // the one an initialize in the batch asks for); for any other it is refused whole (the SDK's transport
  // would handle it whatever the version).
  const refuseBatch = (res: ServerResponse, version: string | undefined): void => {
    const refused = batchRefusal(version);
    runtime.localLogger.warn('JSON-RPC batch refused', { protocol_version: version ?? null });
    rpcError(res, 400, refused.error.code, refused.error.message, refused.id);
  };
  const serveIn = async (id: string, entry: HttpSession, request: Request, parsed: unknown, res: ServerResponse) => {
    const counted = request.method === 'POST';
    if (counted) entry.active += 1;
    armIdle(id, entry);
    const key = requestKey(parsed);
    if (key !== null) entry.calls.set(key, res);
    try {
      const response = await entry.transport.handleRequest(request, { parsedBody: parsed });
      // A cancelled request gets no response, so its stream would stay open, kept alive, for ever:
      // once the cancellation is delivered, the stream of the request it names is ended.
      const cancelled = cancelledKey(parsed);
      const stream = cancelled === null ? undefined : entry.calls.get(cancelled);
      if (stream !== undefined) {
        entry.calls.delete(cancelled!);
        stream.end();
      }
      await send(response, res);
    } finally {
      if (key !== null && entry.calls.get(key) === res) entry.calls.delete(key);
      if (counted) entry.active -= 1;
      if (counted && sessions.get(id) === entry) armIdle(id, entry);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const hostCheck = validateHostHeader(req.headers.host, allowedHosts);
    if (!hostCheck.ok) return rpcError(res, 403, -32000, hostCheck.message);
    const originCheck = validateOriginHeader(req.headers.origin, allowedOrigins);
    if (!originCheck.ok) return rpcError(res, 403, -32000, originCheck.message);
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== path) return rpcError(res, 404, -32000, `Not found: the MCP endpoint is ${path}.`);
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    let body: Buffer | null = null;
    let parsed: unknown;
    if (req.method === 'POST') {
      body = await readBody(req, maxRequestBytes);
      if (body === null) return rpcError(res, 413, -32000, `Request body above ${maxRequestBytes} bytes.`);
      const frame = parseFrame(body.toString('utf8'));
      if (!frame.ok)
        return rpcError(res, 400, frame.response.error.code, frame.response.error.message, frame.response.id);
      parsed = frame.value;
      // The SDK would answer a shapeless message -32700 without its id; answer -32600 for the id instead.
      const refused = frameRefusal(parsed, parseJSONRPCMessage);
      if (refused) {
        runtime.localLogger.warn('invalid JSON-RPC frame refused', { reason: refused.error.message });
        return rpcError(res, 400, refused.error.code, refused.error.message, refused.id);
      }
    }
    const request = new Request(url, {
      method: req.method ?? 'GET',
      headers,
      ...(body ? { body: new Uint8Array(body) } : {}),
    });
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const existing = sessions.get(sessionId);
      if (!existing) return rpcError(res, 404, -32001, 'Session not found.');
      const version = existing.connection.protocolVersion();
      if (Array.isArray(parsed) && !hasBatches(version, SUPPORTED_PROTOCOL_VERSIONS)) return refuseBatch(res, version);
      return serveIn(sessionId, existing, request, parsed, res);
    }
    const initializing =
      req.method === 'POST' &&
      (isInitializeRequest(parsed) ||
        (Array.isArray(parsed) && parsed.some((message) => isInitializeRequest(message))));
    if (!initializing)
      return rpcError(res, 400, -32000, 'Bad request: no mcp-session-id, and not an initialize request.');
    if (Array.isArray(parsed)) {
      const asked = requestedVersion(parsed);
      if (!hasBatches(asked, SUPPORTED_PROTOCOL_VERSIONS)) return refuseBatch(res, asked);
    }
    const connection = createConnection(runtime, 'http');
    let entry: HttpSession | null = null;
    const transport = new HttpTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        entry = { transport, connection, active: 1, timer: null, calls: new Map() };
        sessions.set(id, entry);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
        void connection.close();
      },
    });
    sendLargeEventsInSlices(transport);
    void connection.closed.then(() => {
      if (entry?.timer) clearTimeout(entry.timer);
      if (transport.sessionId && sessions.get(transport.sessionId) === entry) sessions.delete(transport.sessionId);
    });
    await connection.connect(transport);
    try {
      return await send(await transport.handleRequest(request, { parsedBody: parsed }), res);
    } finally {
      const id = transport.sessionId;
      const started = entry as HttpSession | null;
      if (started && id !== undefined && sessions.get(id) === started) {
        started.active -= 1;
        armIdle(id, started);
      }
    }
  };

  // Loaded here rather than at the top: a stdio server never needs node:http.
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      runtime.logger.error('HTTP request failed', { message: (error as Error).message });
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(bindError(error, host, options.port)));
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  runtime.logger.info('REA MCP server listening over HTTP', { url: `http://${shownHost}:${address.port}${path}` });
  return {
    host: address.address,
    port: address.port,
    url: `http://${shownHost}:${address.port}${path}`,
    close: async () => {
      for (const entry of sessions.values()) if (entry.timer) clearTimeout(entry.timer);
      const reports = await Promise.all([...sessions.values()].map((entry) => entry.connection.close()));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return {
        cancelled_calls: reports.reduce((sum, report) => sum + report.cancelled_calls, 0),
        remaining: reports.flatMap((report) => report.remaining),
      };
    },
  };
}

/** Why the server could not listen at `host`:`port`, typed by the system's error. */
function bindError(error: NodeJS.ErrnoException, host: string, port: number): ReaError {
  const reason = error.code ?? 'bind-failed';
  const details = { resource: 'bind', host, port, reason };
  if (reason === 'EADDRINUSE') {
    return new ReaError('invalid_request', `Cannot listen on ${host}:${port}: another program is using that port.`, {
      details,
      remediation: 'Choose another port, or stop the program that holds this one.',
    });
  }
  if (reason === 'EADDRNOTAVAIL') {
    return new ReaError('invalid_request', `Cannot listen on ${host}:${port}: this host has no such address.`, {
      details,
      remediation: 'Listen on 127.0.0.1 or ::1, or on an address this host has.',
    });
  }
  return new ReaError('access_denied', `Cannot bind ${host}:${port} (${error.code ?? error.message}).`, {
    details,
    remediation: 'Choose a port this user may open (1024 or above), or run with the permission to bind it.',
  });
}

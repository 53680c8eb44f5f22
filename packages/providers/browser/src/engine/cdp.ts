/**
 * The only place chrome-remote-interface is loaded: a DevTools Protocol connection to one WebSocket
 * URL (a browser or a page), narrowed to what the provider uses. The library (with its half-megabyte
 * protocol description and its WebSocket client) is imported on the first connection, not with the
 * provider: a process that lists or calls other tools never evaluates it.
 */
import { ReaError } from '@rea/evidence';
import { markInternalScript } from '../internalScript.js';

/** Parameters of a DevTools event or result, as JSON. */
export type CdpParams = Record<string, unknown>;

/** One DevTools Protocol connection. */
export interface CdpConnection {
  /** Sends a command; rejects with the protocol's error message or when the connection closes. */
  send(method: string, params?: CdpParams): Promise<CdpParams>;
  /** Calls `listener` for each `event` (e.g. "Network.responseReceived"). */
  on(event: string, listener: (params: CdpParams) => void): void;
  /** Calls `listener` once the connection is gone (closed by either side). */
  onDisconnect(listener: () => void): void;
  /** Closes the connection; never rejects. */
  close(): Promise<void>;
}

// Protocol errors that mean the page or its session went away, not that the command was refused.
const TARGET_GONE = /target closed|session closed|navigated or closed|no (?:target|session) with given id/i;

/**
 * A command the browser answered with a protocol error (chrome-remote-interface's errors carry the
 * `response`) as `execution_failure` (`details.reason: "protocol-error"`, with the method): the browser is
 * there and refused it. Other errors (a closed connection, a target gone) are returned as they are.
 */
function refused(method: string, error: unknown): unknown {
  const response = (error as { response?: { code?: unknown } } | null)?.response;
  const message = error instanceof Error ? error.message : String(error);
  if (response === undefined || TARGET_GONE.test(message)) return error;
  return new ReaError('execution_failure', `The browser refused ${method}: ${message}.`, {
    details: {
      reason: 'protocol-error',
      method,
      code: typeof response.code === 'number' ? response.code : null,
      cause: message,
    },
  });
}

interface RawClient {
  send(method: string, params?: object): Promise<CdpParams>;
  on(event: string, listener: (params: CdpParams) => void): void;
  close(): Promise<void>;
}

/** Connects to a DevTools WebSocket URL (`ws://127.0.0.1:<port>/devtools/...`). */
export async function connectCdp(webSocketUrl: string): Promise<CdpConnection> {
  const { default: CDP } = await import('chrome-remote-interface');
  const client = (await CDP({ target: webSocketUrl, local: true })) as RawClient;
  let closed = false;
  const gone: Array<() => void> = [];
  client.on('disconnect', () => {
    closed = true;
    for (const listener of gone.splice(0)) listener();
  });
  return {
    // Every script REA runs in a page is marked, so recordings leave REA's own scripts out.
    send: (method, params) =>
      client.send(method, markInternalScript(method, params ?? {})).catch((error: unknown) => {
        throw refused(method, error);
      }),
    on: (event, listener) => client.on(event, listener),
    onDisconnect: (listener) => {
      if (closed) listener();
      else gone.push(listener);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close().catch(() => undefined);
      for (const listener of gone.splice(0)) listener();
    },
  };
}

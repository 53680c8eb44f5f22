/**
 * The only place chrome-remote-interface is loaded: a DevTools Protocol connection to one WebSocket
 * URL (a browser or a page), narrowed to what the provider uses. The library (with its half-megabyte
 * protocol description and its WebSocket client) is imported on the first connection, not with the
 * provider: a process that lists or calls other tools never evaluates it.
 */
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
    send: (method, params) => client.send(method, markInternalScript(method, params ?? {})),
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

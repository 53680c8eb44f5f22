import { answerDialog } from '../dialogs.js';
import type { CdpConnection, CdpParams } from '../engine/cdp.js';
import { exceptionText } from '../exceptionText.js';
import { INTERNAL_SCRIPT_URL } from '../internalScript.js';

/** How many of each kind of observation a recorder keeps. */
export const RECORD_LIMITS = Object.freeze({
  console: 200,
  consoleObserved: 10_000,
  requests: 2000,
  scripts: 1000,
  text: 500,
});

interface Request {
  url: string;
  type: string;
  status: number | null;
  /** Body bytes delivered to the page, decoded; null until the request finishes (and for a redirect hop). */
  size: number | null;
  mime: string | null;
  initiator: string | null;
  headers: Record<string, string> | null;
  frameId: string | null;
}

/** What the page's DevTools events reported while the recorder listened. */
export interface Recording {
  /** Every request and redirect hop, in the order sent (keyed by request id, a hop by `id#n`). */
  requests: Map<string, Request>;
  requestsDropped: number;
  scripts: CdpParams[];
  scriptsDropped: number;
  console: Array<{ level: string; source: string; text: string }>;
  consoleTotal: number;
  consoleStopped: boolean;
  dialogs: Array<{ type: string; message: string }>;
  /** The default (page) JavaScript context of each frame of this page's process: frame id → context id. */
  contexts: Map<string, number>;
  loaded: boolean;
  onLoad: Array<() => void>;
}

const cut = (text: string) => (text.length > RECORD_LIMITS.text ? `${text.slice(0, RECORD_LIMITS.text)}…` : text);

function consoleText(args: unknown): string {
  if (!Array.isArray(args)) return '';
  return cut(
    args
      .map((a: { value?: unknown; description?: string; type?: string }) =>
        a.value !== undefined ? String(a.value) : (a.description ?? a.type ?? ''),
      )
      .join(' '),
  );
}

function initiatorOf(initiator: unknown): string | null {
  const i = initiator as { type?: string; url?: string } | undefined;
  if (!i?.type) return null;
  return i.url ? `${i.type} ${i.url}` : i.type;
}

/**
 * Listens to a page connection: network requests, parsed scripts, console messages and uncaught
 * exceptions (the first
 * {@link RECORD_LIMITS.console} kept; past {@link RECORD_LIMITS.consoleObserved} the console domains are
 * disabled so a flood cannot swamp the connection), dialogs (answered by {@link answerDialog} when
 * `dismissDialogs`: dismissed, a `beforeunload` prompt accepted) and the
 * load event.
 */
export function record(page: CdpConnection, options: { dismissDialogs: boolean }): Recording {
  const r: Recording = {
    requests: new Map(),
    requestsDropped: 0,
    scripts: [],
    scriptsDropped: 0,
    console: [],
    consoleTotal: 0,
    consoleStopped: false,
    dialogs: [],
    contexts: new Map(),
    loaded: false,
    onLoad: [],
  };
  const message = (level: string, source: string, text: string) => {
    r.consoleTotal += 1;
    if (r.console.length < RECORD_LIMITS.console) r.console.push({ level, source, text });
    if (r.consoleTotal >= RECORD_LIMITS.consoleObserved && !r.consoleStopped) {
      r.consoleStopped = true;
      void page.send('Runtime.disable').catch(() => undefined);
      void page.send('Log.disable').catch(() => undefined);
    }
  };
  page.on(
    'Runtime.consoleAPICalled',
    (p) => !r.consoleStopped && message(String(p['type']), 'console-api', consoleText(p['args'])),
  );
  // Uncaught exceptions and unhandled rejections, as DevTools shows them in its console.
  page.on('Runtime.exceptionThrown', (p) => !r.consoleStopped && message('error', 'javascript', cut(exceptionText(p))));
  page.on('Log.entryAdded', (p) => {
    const entry = p['entry'] as { level: string; source: string; text: string };
    if (!r.consoleStopped) message(entry.level, entry.source, cut(entry.text));
  });
  page.on('Debugger.scriptParsed', (p) => {
    if (p['url'] === INTERNAL_SCRIPT_URL) return;
    if (r.scripts.length < RECORD_LIMITS.scripts) r.scripts.push(p);
    else r.scriptsDropped += 1;
  });
  // The entry of each request's latest hop: a redirect keeps its request id, and each hop is listed.
  const latest = new Map<string, string>();
  const entryOf = (p: CdpParams) => {
    const key = latest.get(String(p['requestId']));
    return key === undefined ? undefined : r.requests.get(key);
  };
  page.on('Network.requestWillBeSent', (p) => {
    const id = String(p['requestId']);
    const request = p['request'] as { url: string };
    const redirect = p['redirectResponse'] as
      { status: number; mimeType: string; headers: Record<string, string> } | undefined;
    const previous = entryOf(p);
    // A redirect hop's body is not delivered to the page: its size stays unknown.
    if (redirect !== undefined && previous !== undefined)
      Object.assign(previous, { status: redirect.status, mime: redirect.mimeType, headers: redirect.headers });
    if (r.requests.size >= RECORD_LIMITS.requests) {
      latest.delete(id);
      r.requestsDropped += 1;
      return;
    }
    const key = previous === undefined || redirect === undefined ? id : `${id}#${r.requests.size}`;
    latest.set(id, key);
    r.requests.set(key, {
      url: request.url,
      type: String(p['type'] ?? 'Other'),
      status: null,
      size: null,
      mime: null,
      initiator: initiatorOf(p['initiator']),
      headers: null,
      frameId: (p['frameId'] as string | undefined) ?? null,
    });
  });
  page.on('Network.responseReceived', (p) => {
    const entry = entryOf(p);
    const response = p['response'] as { status: number; mimeType: string; headers: Record<string, string> };
    if (!entry) return;
    Object.assign(entry, {
      status: response.status,
      mime: response.mimeType,
      headers: response.headers,
      type: String(p['type'] ?? entry.type),
    });
  });
  // The body's size as delivered to the page (after any content encoding), summed over its data
  // events: loadingFinished's encodedDataLength would count the response headers too.
  const bodyBytes = new Map<Request, number>();
  page.on('Network.dataReceived', (p) => {
    const entry = entryOf(p);
    if (entry) bodyBytes.set(entry, (bodyBytes.get(entry) ?? 0) + Math.max(0, Number(p['dataLength'] ?? 0)));
  });
  page.on('Network.loadingFinished', (p) => {
    const entry = entryOf(p);
    if (entry) entry.size = Math.round(bodyBytes.get(entry) ?? 0);
  });
  page.on('Runtime.executionContextCreated', (p) => {
    const context = p['context'] as { id: number; auxData?: { frameId?: string; isDefault?: boolean } };
    if (context.auxData?.isDefault && context.auxData.frameId) r.contexts.set(context.auxData.frameId, context.id);
  });
  page.on('Runtime.executionContextDestroyed', (p) => {
    for (const [frame, id] of r.contexts) if (id === p['executionContextId']) r.contexts.delete(frame);
  });
  page.on('Runtime.executionContextsCleared', () => r.contexts.clear());
  page.on('Page.javascriptDialogOpening', (p) => {
    r.dialogs.push({ type: String(p['type']), message: cut(String(p['message'] ?? '')) });
    if (options.dismissDialogs) answerDialog(page, String(p['type']));
  });
  page.on('Page.loadEventFired', () => {
    r.loaded = true;
    for (const listener of r.onLoad.splice(0)) listener();
  });
  return r;
}

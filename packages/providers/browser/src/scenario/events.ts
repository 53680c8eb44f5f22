import { answerDialog } from '../dialogs.js';
import type { CdpConnection, CdpParams } from '../engine/cdp.js';
import { exceptionText } from '../exceptionText.js';
import type { ScenarioCapture } from './schema.js';

type Event = ScenarioCapture['events'][number];

/** How many bytes of events (as JSON) a capture keeps when the request does not say. */
export const EVENT_BYTES = 4 * 1024 * 1024;

/** How many recently requested URLs a log remembers the requesting action of. */
const REQUESTERS = 1000;

/**
 * The ordered event log of a scenario, with the in-flight request count for network idleness. Events
 * are kept while their JSON fits the byte budget; later ones are counted (`total`, `droppedBytes`).
 */
export class EventLog {
  readonly events: Event[] = [];
  total = 0;
  action: number | null = null;
  /** How many `beforeunload` prompts the page raised (each accepted, so the navigation went on). */
  beforeUnloadPrompts = 0;
  /** Bytes (as JSON) of the kept events, and of those counted but not kept. */
  keptBytes = 0;
  droppedBytes = 0;
  /**
   * Requests sent and not yet finished or failed: request id → URL, the loader (document) and the frame
   * it belongs to.
   */
  private readonly inflight = new Map<string, { url: string; loader: string; frame: string }>();
  /** Documents the page has left: a request of one (a beacon sent as it unloads) never counts. */
  private readonly leftLoaders = new Set<string>();
  /** The current document of each frame (frame id → loader id). */
  private readonly documents = new Map<string, string>();
  /** The action (null: none yet) that last requested each URL, for the most recent URLs. */
  private readonly requesters = new Map<string, number | null>();
  private lastActivity = Date.now();
  private stopped = false;

  constructor(readonly budget: number = EVENT_BYTES) {}

  /** Ends the log: later events (of a closing page) are neither kept nor counted. */
  stop(): void {
    this.stopped = true;
  }

  /** Events counted but not kept. */
  get dropped(): number {
    return this.total - this.events.length;
  }

  /** Appends an event (kept while the byte budget allows) and returns its seq. */
  add(kind: Event['kind'], detail: string, url: string | null = null, status: number | null = null): number {
    const seq = this.total;
    if (this.stopped) return seq;
    this.total += 1;
    const event = {
      seq,
      action: this.action,
      kind,
      url: url === null ? null : url.slice(0, 2048),
      status,
      detail: detail.slice(0, 500),
    };
    const bytes = Buffer.byteLength(JSON.stringify(event));
    // Once one event does not fit, later ones are not kept either, so the kept events stay a prefix.
    if (this.droppedBytes === 0 && this.keptBytes + bytes <= this.budget) {
      this.events.push(event);
      this.keptBytes += bytes;
    } else this.droppedBytes += bytes;
    return seq;
  }

  /**
   * The action (null: before the first) during which the page last requested `url`, or undefined when it
   * did not request it (or not among the last {@link REQUESTERS} URLs).
   */
  requestedBy(url: string): number | null | undefined {
    return this.requesters.get(url);
  }

  private requested(url: string): void {
    this.requesters.delete(url);
    this.requesters.set(url, this.action);
    if (this.requesters.size > REQUESTERS) this.requesters.delete(this.requesters.keys().next().value!);
  }

  /** Milliseconds since the last network activity, or null while a request is in flight. */
  quietFor(): number | null {
    return this.inflight.size > 0 ? null : Date.now() - this.lastActivity;
  }

  /**
   * `frame` now shows the document `loader` (null: the frame is gone). The documents it replaces are
   * left: the frame's previous one, and when it is the main frame every other frame's too. Their requests
   * in flight stop counting, and so do any they send later.
   */
  private leave(frame: string, loader: string | null, main: boolean, activity: () => void): void {
    const previous = main ? [...this.documents.values()] : [this.documents.get(frame)];
    for (const document of previous) if (document !== undefined && document !== loader) this.leftLoaders.add(document);
    // A document shown again (restored from the back/forward cache) is current again.
    if (loader !== null) this.leftLoaders.delete(loader);
    if (main) this.documents.clear();
    if (loader === null) this.documents.delete(frame);
    else this.documents.set(frame, loader);
    let ended = false;
    for (const [id, request] of this.inflight) {
      if ((main || request.frame === frame) && request.loader !== loader) {
        if (request.loader !== '') this.leftLoaders.add(request.loader);
        this.inflight.delete(id);
        ended = true;
      }
    }
    if (ended) activity();
  }

  /** The URLs of the requests in flight, oldest first, at most `limit` of them. */
  inFlight(limit = 5): string[] {
    return [...this.inflight.values()].slice(0, limit).map((r) => r.url.slice(0, 200));
  }

  /** Listens to the page's network, console, navigation and dialog events. */
  listen(page: CdpConnection): void {
    const activity = () => (this.lastActivity = Date.now());
    page.on('Network.requestWillBeSent', (p) => {
      // A redirect arrives as the next hop's request, carrying the response that redirected it.
      const redirect = p['redirectResponse'] as { url: string; status: number; mimeType: string } | undefined;
      if (redirect !== undefined) this.add('response', redirect.mimeType, redirect.url, redirect.status);
      const url = String((p['request'] as CdpParams)['url']);
      const loader = String(p['loaderId'] ?? '');
      if (!this.leftLoaders.has(loader))
        this.inflight.set(String(p['requestId']), { url, loader, frame: String(p['frameId'] ?? '') });
      activity();
      this.requested(url);
      this.add('request', String((p['request'] as CdpParams)['method'] ?? 'GET'), url);
    });
    page.on('Network.responseReceived', (p) => {
      const response = p['response'] as { url: string; status: number; mimeType: string };
      this.add('response', response.mimeType, response.url, response.status);
    });
    const done = (p: CdpParams) => {
      this.inflight.delete(String(p['requestId']));
      activity();
    };
    page.on('Network.loadingFinished', done);
    page.on('Network.loadingFailed', (p) => {
      done(p);
      this.add('request-failed', String(p['errorText'] ?? ''));
    });
    page.on('Runtime.consoleAPICalled', (p) => {
      const args = (p['args'] as Array<{ value?: unknown; description?: string }> | undefined) ?? [];
      this.add(
        'console',
        `${String(p['type'])}: ${args.map((a) => (a.value !== undefined ? String(a.value) : (a.description ?? ''))).join(' ')}`,
      );
    });
    // Uncaught exceptions and unhandled rejections, as DevTools shows them in its console.
    page.on('Runtime.exceptionThrown', (p) => this.add('console', `error: ${exceptionText(p)}`));
    page.on('Page.frameNavigated', (p) => {
      const frame = p['frame'] as { id?: string; url: string; parentId?: string; loaderId?: string };
      // A new document in a frame ends the requests of the one it replaces, and Chromium reports no end
      // for those still in flight (a fetch never answered, a favicon): they stop counting. In the main
      // frame every other document goes (its frames' too).
      this.leave(String(frame.id ?? ''), String(frame.loaderId ?? ''), !frame.parentId, activity);
      this.add('navigation', frame.parentId ? 'frame' : 'main frame', frame.url);
    });
    page.on('Page.frameDetached', (p) => this.leave(String(p['frameId'] ?? ''), null, false, activity));
    page.on('Page.javascriptDialogOpening', (p) => {
      const type = String(p['type']);
      if (type === 'beforeunload') this.beforeUnloadPrompts += 1;
      // A dialog left open would stop the page; see answerDialog for how each is answered.
      const shown = type === 'beforeunload' ? 'beforeunload (accepted)' : type;
      this.add('dialog', `${shown}: ${String(p['message'] ?? '')}`, String(p['url'] ?? '') || null);
      answerDialog(page, type);
    });
  }
}

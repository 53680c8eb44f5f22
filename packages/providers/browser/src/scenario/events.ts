import type { CdpConnection, CdpParams } from '../engine/cdp.js';
import type { ScenarioCapture } from './schema.js';

type Event = ScenarioCapture['events'][number];

/** How many events a capture keeps (later ones are counted). */
export const MAX_EVENTS = 5000;

/** The ordered event log of a scenario, with the in-flight request count for network idleness. */
export class EventLog {
  readonly events: Event[] = [];
  total = 0;
  action: number | null = null;
  private readonly inflight = new Set<string>();
  private lastActivity = Date.now();

  private stopped = false;

  /** Ends the log: later events (of a closing page) are neither kept nor counted. */
  stop(): void {
    this.stopped = true;
  }

  /** Appends an event (kept while under {@link MAX_EVENTS}) and returns its seq. */
  add(kind: Event['kind'], detail: string, url: string | null = null, status: number | null = null): number {
    const seq = this.total;
    if (this.stopped) return seq;
    this.total += 1;
    if (this.events.length < MAX_EVENTS)
      this.events.push({ seq, action: this.action, kind, url, status, detail: detail.slice(0, 500) });
    return seq;
  }

  /** Milliseconds since the last network activity, or null while a request is in flight. */
  quietFor(): number | null {
    return this.inflight.size > 0 ? null : Date.now() - this.lastActivity;
  }

  /** Listens to the page's network, console, navigation, dialog and download events. */
  listen(page: CdpConnection, browser: CdpConnection): void {
    const activity = () => (this.lastActivity = Date.now());
    page.on('Network.requestWillBeSent', (p) => {
      this.inflight.add(String(p['requestId']));
      activity();
      this.add(
        'request',
        String((p['request'] as CdpParams)['method'] ?? 'GET'),
        String((p['request'] as CdpParams)['url']),
      );
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
    page.on('Page.frameNavigated', (p) => {
      const frame = p['frame'] as { url: string; parentId?: string };
      this.add('navigation', frame.parentId ? 'frame' : 'main frame', frame.url);
    });
    page.on('Page.javascriptDialogOpening', (p) => {
      this.add('dialog', `${String(p['type'])}: ${String(p['message'] ?? '')}`, String(p['url'] ?? '') || null);
      void page.send('Page.handleJavaScriptDialog', { accept: false }).catch(() => undefined);
    });
    browser.on('Browser.downloadWillBegin', (p) =>
      this.add('download', String(p['suggestedFilename'] ?? ''), String(p['url'] ?? '')),
    );
  }
}

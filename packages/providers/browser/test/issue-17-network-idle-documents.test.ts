// Network idleness across documents, driven through the scenario's event log by a scripted sequence of
// DevTools Protocol events (the order Chromium sends them in; no browser here — the real browser runs in
// issue-17-scenario). Chromium reports no end for the requests of a document a frame has left, so those
// stop counting when the frame commits its next document; the new document's requests (its navigation
// request among them) still count, a frame's navigation leaves the other frames' requests alone, and a
// request a left document sends later (a beacon as it unloads) never counts.
import { describe, expect, it } from '@jest/globals';
import type { CdpConnection, CdpParams } from '../src/engine/cdp.js';
import { EventLog } from '../src/scenario/events.js';

/** A page whose events this test sends. */
function scriptedPage(): { page: CdpConnection; emit: (event: string, params: CdpParams) => void } {
  const listeners = new Map<string, Array<(params: CdpParams) => void>>();
  const page: CdpConnection = {
    send: () => Promise.resolve({}),
    on: (event, listener) => listeners.set(event, [...(listeners.get(event) ?? []), listener]),
    onDisconnect: () => undefined,
    close: () => Promise.resolve(),
  };
  return { page, emit: (event, params) => listeners.get(event)?.forEach((listener) => listener(params)) };
}

const sent = (requestId: string, loaderId: string, frameId: string, url: string): CdpParams => ({
  requestId,
  loaderId,
  frameId,
  request: { method: 'GET', url },
});
const committed = (id: string, loaderId: string, url: string, parentId?: string): CdpParams => ({
  frame: { id, loaderId, url, ...(parentId ? { parentId } : {}) },
});

describe('issue 17: network idleness across documents', () => {
  it('should stop counting the requests of a document the main frame has left, and keep the new one’s', () => {
    const { page, emit } = scriptedPage();
    const log = new EventLog();
    log.listen(page);
    emit('Network.requestWillBeSent', sent('nav1', 'L1', 'main', 'http://x/'));
    emit('Page.frameNavigated', committed('main', 'L1', 'http://x/'));
    emit('Network.loadingFinished', { requestId: 'nav1' });
    emit('Network.requestWillBeSent', sent('never', 'L1', 'main', 'http://x/never'));
    // The first commit of a document leaves its own requests counting.
    expect(log.inFlight()).toEqual(['http://x/never']);
    expect(log.quietFor()).toBeNull();

    // A new document's navigation request is sent under the new loader, before its commit.
    emit('Network.requestWillBeSent', sent('nav2', 'L2', 'main', 'http://x/next'));
    expect(log.inFlight()).toEqual(['http://x/never', 'http://x/next']);
    emit('Page.frameNavigated', committed('main', 'L2', 'http://x/next'));
    expect(log.inFlight()).toEqual(['http://x/next']);
    // A beacon the left document sends as it unloads never counts.
    emit('Network.requestWillBeSent', sent('beacon', 'L1', 'main', 'http://x/beacon'));
    expect(log.inFlight()).toEqual(['http://x/next']);
    emit('Network.loadingFinished', { requestId: 'nav2' });
    expect(log.inFlight()).toEqual([]);
    expect(log.quietFor()).not.toBeNull();
    // Every request is still in the event log.
    expect(log.events.filter((e) => e.kind === 'request').map((e) => e.url)).toEqual([
      'http://x/',
      'http://x/never',
      'http://x/next',
      'http://x/beacon',
    ]);
  });

  it('should leave other frames’ requests alone when a frame navigates, and end a removed frame’s', () => {
    const { page, emit } = scriptedPage();
    const log = new EventLog();
    log.listen(page);
    emit('Page.frameNavigated', committed('main', 'M1', 'http://x/'));
    emit('Network.requestWillBeSent', sent('main-fetch', 'M1', 'main', 'http://x/slow'));
    emit('Page.frameNavigated', committed('child', 'C1', 'http://x/frame', 'main'));
    emit('Network.requestWillBeSent', sent('child-fetch', 'C1', 'child', 'http://x/frame-slow'));
    emit('Page.frameNavigated', committed('other', 'O1', 'http://x/other', 'main'));
    emit('Network.requestWillBeSent', sent('other-fetch', 'O1', 'other', 'http://x/other-slow'));
    // The child frame moves to a new document: only its own old request ends.
    emit('Network.requestWillBeSent', sent('child-nav', 'C2', 'child', 'http://x/frame2'));
    emit('Page.frameNavigated', committed('child', 'C2', 'http://x/frame2', 'main'));
    expect(log.inFlight()).toEqual(['http://x/slow', 'http://x/other-slow', 'http://x/frame2']);
    // A frame taken out of the page ends its requests.
    emit('Page.frameDetached', { frameId: 'other' });
    expect(log.inFlight()).toEqual(['http://x/slow', 'http://x/frame2']);
    // A document restored from the back/forward cache counts its requests again.
    emit('Page.frameNavigated', committed('main', 'M2', 'http://x/b'));
    expect(log.inFlight()).toEqual([]);
    emit('Page.frameNavigated', committed('main', 'M1', 'http://x/'));
    emit('Network.requestWillBeSent', sent('again', 'M1', 'main', 'http://x/again'));
    expect(log.inFlight()).toEqual(['http://x/again']);
  });
});

import { ReaError } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import type { BrowserHandle, TargetInfo } from '../browser.js';
import { parseEndpoint } from '../endpoint.js';
import { checkPageUrl } from '../pageUrl.js';
import type { CdpConnection } from '../engine/cdp.js';
import { requireSessionBrowser } from '../ownedSession.js';
import { record } from './recorder.js';
import type { Recording } from './recorder.js';
import type { Steps } from './step.js';

/** An attached page with its recorder running. */
export interface OpenPage {
  page: CdpConnection;
  target: TargetInfo;
  /** True when REA opened the tab and loaded `url` in it (so it observed the load); false when it attached to a target as it was. */
  fresh: boolean;
  /** Every target of the browser, listed when the page was opened (after its load, for "owned"). */
  targets: TargetInfo[];
  recording: Recording;
}

/** What a request names: a target of an external endpoint, or a URL to load in the owned browser. */
export interface PageRequest {
  endpoint: string;
  target_id?: string | undefined;
  url?: string | undefined;
}

/**
 * Checks the endpoint first ({@link parseEndpoint}: what is not an endpoint is refused as such, not as
 * a page not named), then that the request names exactly what its endpoint kind needs: with "owned",
 * `url` (a new tab) or `target_id` (a tab of the session's browser, where the host keeps one for the
 * session); with an external endpoint, `target_id`.
 */
export function checkPageRequest(request: PageRequest, context?: ToolContext): void {
  const owned = parseEndpoint(request.endpoint).kind === 'owned';
  const problem = owned
    ? request.url === undefined && request.target_id === undefined
      ? 'endpoint "owned" needs url (the page to load in a new tab) or target_id (a tab it already has)'
      : request.url !== undefined && request.target_id !== undefined
        ? 'endpoint "owned" takes url (the page to load in a new tab) or target_id (a tab it already has), not both'
        : null
    : request.target_id === undefined
      ? 'an external endpoint needs target_id (from list_browser_targets)'
      : request.url !== undefined
        ? 'url loads a page only in the owned browser; on an external endpoint the target is observed as it is'
        : null;
  if (problem !== null) {
    throw new ReaError('invalid_request', `Request does not name its page: ${problem}.`, {
      details: { reason: 'page-not-named', endpoint: request.endpoint },
      remediation:
        'Pass { endpoint: "owned", url }, { endpoint: "owned", target_id } or { endpoint: "http://127.0.0.1:<port>", target_id }.',
    });
  }
  if (owned && request.target_id !== undefined && context !== undefined) requireSessionBrowser(context);
  if (owned && request.url !== undefined) checkPageUrl(request.url, 'url');
}

const DOMAINS = ['Page.enable', 'Network.enable', 'Runtime.enable', 'Log.enable', 'Debugger.enable'];

/**
 * Attaches to the named page and starts recording. Given `url` (owned browser) it opens a fresh tab,
 * runs `beforeLoad` (instrumentation that must precede the page's scripts), loads `url` and waits for
 * the load event up to `loadMs` (a `load-incomplete` limitation after that); a `url` that is a download
 * goes to `onDownload`. Given `target_id` it
 * attaches to that target and changes nothing.
 */
export async function openPage(
  handle: BrowserHandle,
  request: PageRequest,
  options: {
    loadMs: number;
    steps: Steps;
    track: (c: CdpConnection) => CdpConnection;
    /** Registers the tab opened for `url` (see `BrowserRun.opened`). */
    opened: (targetId: string, page?: CdpConnection) => void;
    beforeLoad?: (page: CdpConnection) => Promise<void>;
    /**
     * Called when `url` is a download (an attachment) rather than a page; what it answers is waited for
     * up to `loadMs` (the download beginning). Without it such a `url` is `unsupported_target`.
     */
    onDownload?: () => Promise<void>;
  },
): Promise<OpenPage> {
  const owned = handle.owned !== null;
  const fresh = owned && request.url !== undefined;
  const targetId = fresh
    ? String((await handle.browser.send('Target.createTarget', { url: 'about:blank' }))['targetId'])
    : request.target_id!;
  if (fresh) options.opened(targetId);
  const attached = await handle.attachListing(targetId);
  const page = options.track(attached.connection);
  if (fresh) options.opened(targetId, page);
  const recording = record(page, { dismissDialogs: owned });
  // A fresh tab is REA's own blank page: enabling waits for its renderer, within the call's deadline.
  // An existing target may be too busy to answer: each domain is then a limitation.
  await Promise.all(
    DOMAINS.map((m) => (fresh ? page.send(m) : options.steps.run('domain-unavailable', m, () => page.send(m)))),
  );
  if (fresh) {
    await options.beforeLoad?.(page);
    const loaded = new Promise<void>((resolve) => recording.onLoad.push(resolve));
    let download = false;
    const navigation = page.send('Page.navigate', { url: request.url }).then((navigated) => {
      // The browser saves the response as a file and the tab stays blank; it reports that as aborted.
      if (navigated['isDownload'] === true) {
        download = true;
        if (options.onDownload) return options.onDownload();
        throw new ReaError('unsupported_target', `${request.url} is a download (an attachment), not a page.`, {
          details: { reason: 'download', url: request.url! },
          remediation:
            'Record it with capture_browser_scenario, which keeps downloads, or name the page that links to it.',
        });
      }
      if (typeof navigated['errorText'] === 'string' && navigated['errorText'] !== '') {
        throw new ReaError('target_unavailable', `Loading ${request.url} failed: ${navigated['errorText']}.`, {
          details: { reason: 'navigation-failed', url: request.url!, error: String(navigated['errorText']) },
          remediation: 'Check that the page is served and reachable from this machine.',
        });
      }
      return loaded;
    });
    navigation.catch(() => undefined);
    await options.steps.settleWithin(navigation, options.loadMs);
    if (!recording.loaded && !download)
      options.steps.limit(
        'load-incomplete',
        `The page did not finish loading within ${options.loadMs} ms; what loaded so far is reported.`,
      );
  }
  // An existing target was listed while attaching; a fresh page has just loaded, so it is listed again.
  const targets = fresh ? await handle.targets() : attached.targets;
  const target = targets.find((t) => t.targetId === targetId) ?? {
    targetId,
    type: 'page',
    url: request.url ?? '',
    title: '',
    attached: true,
  };
  return { page, target, fresh, targets, recording };
}

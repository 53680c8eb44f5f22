import { ReaError } from '@rea/evidence';
import type { BrowserHandle, TargetInfo } from '../browser.js';
import type { CdpConnection } from '../engine/cdp.js';
import { record } from './recorder.js';
import type { Recording } from './recorder.js';
import type { Steps } from './step.js';

/** An attached page with its recorder running. */
export interface OpenPage {
  page: CdpConnection;
  target: TargetInfo;
  recording: Recording;
}

/** What a request names: a target of an external endpoint, or a URL to load in the owned browser. */
export interface PageRequest {
  endpoint: string;
  target_id?: string | undefined;
  url?: string | undefined;
}

/** Checks that the request names exactly what its endpoint kind needs. */
export function checkPageRequest(request: PageRequest): void {
  const owned = request.endpoint === 'owned';
  const problem = owned
    ? request.url === undefined
      ? 'endpoint "owned" needs url, the page to load'
      : request.target_id !== undefined
        ? 'endpoint "owned" starts a fresh browser, so target_id names nothing in it; pass url only'
        : null
    : request.target_id === undefined
      ? 'an external endpoint needs target_id (from list_browser_targets)'
      : request.url !== undefined
        ? 'url loads a page only in the owned browser; on an external endpoint the target is observed as it is'
        : null;
  if (problem !== null) {
    throw new ReaError('invalid_request', `Request does not name its page: ${problem}.`, {
      details: { reason: 'page-not-named', endpoint: request.endpoint },
      remediation: 'Pass { endpoint: "owned", url } or { endpoint: "http://127.0.0.1:<port>", target_id }.',
    });
  }
  if (owned) {
    let scheme = '';
    try {
      scheme = new URL(request.url!).protocol;
    } catch {
      // judged below
    }
    if (!['http:', 'https:', 'file:', 'about:', 'data:'].includes(scheme)) {
      throw new ReaError('invalid_request', `url "${request.url}" is not an http, https, file, about or data URL.`, {
        details: { reason: 'invalid-url', url: request.url! },
      });
    }
  }
}

const DOMAINS = ['Page.enable', 'Network.enable', 'Runtime.enable', 'Log.enable', 'Debugger.enable'];

/**
 * Attaches to the named page and starts recording. In the owned browser it opens a fresh tab, runs
 * `beforeLoad` (instrumentation that must precede the page's scripts), loads `url` and waits for the
 * load event up to `loadMs` (a `load-incomplete` limitation after that). On an external endpoint it
 * attaches to `target_id` and changes nothing.
 */
export async function openPage(
  handle: BrowserHandle,
  request: PageRequest,
  options: {
    loadMs: number;
    steps: Steps;
    track: (c: CdpConnection) => CdpConnection;
    beforeLoad?: (page: CdpConnection) => Promise<void>;
  },
): Promise<OpenPage> {
  const owned = handle.owned !== null;
  const targetId = owned
    ? String((await handle.browser.send('Target.createTarget', { url: 'about:blank' }))['targetId'])
    : request.target_id!;
  const page = options.track(await handle.attach(targetId));
  const recording = record(page, { dismissDialogs: owned });
  // The owned tab is REA's own blank page: enabling waits for its renderer, within the call's deadline.
  // An external target may be too busy to answer: each domain is then a limitation.
  await Promise.all(
    DOMAINS.map((m) => (owned ? page.send(m) : options.steps.run('domain-unavailable', m, () => page.send(m)))),
  );
  if (owned) {
    await options.beforeLoad?.(page);
    const loaded = new Promise<void>((resolve) => recording.onLoad.push(resolve));
    const navigation = page.send('Page.navigate', { url: request.url }).then((navigated) => {
      if (typeof navigated['errorText'] === 'string' && navigated['errorText'] !== '') {
        throw new ReaError('target_unavailable', `Loading ${request.url} failed: ${navigated['errorText']}.`, {
          details: { reason: 'navigation-failed', url: request.url!, error: String(navigated['errorText']) },
          remediation: 'Check that the page is served and reachable from this machine.',
        });
      }
      return loaded;
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([navigation, new Promise((resolve) => (timer = setTimeout(resolve, options.loadMs)))]);
    clearTimeout(timer);
    navigation.catch(() => undefined);
    if (!recording.loaded)
      options.steps.limit(
        'load-incomplete',
        `The page did not finish loading within ${options.loadMs} ms; what loaded so far is reported.`,
      );
  }
  const target = (await handle.targets()).find((t) => t.targetId === targetId) ?? {
    targetId,
    type: 'page',
    url: request.url ?? '',
    title: '',
    attached: true,
  };
  return { page, target, recording };
}

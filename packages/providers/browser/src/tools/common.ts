import { z } from 'zod';
import { createAnalysisProfile } from '@rea/evidence';
import type { JsonObject, ProviderIdentity } from '@rea/evidence';
import { withDeadline } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import { connectionLost, openBrowser } from '../browser.js';
import type { BrowserHandle } from '../browser.js';
import type { CdpConnection } from '../engine/cdp.js';
import { MAX_KEPT_TABS, tabsPastLimit, useTab } from '../keptTabs.js';
import { BROWSER_PROVIDER_VERSION } from '../version.js';

export { originAllowed } from '../origins.js';

/** The identity recorded as `provider` in browser Evidence. */
export const BROWSER_PROVIDER: ProviderIdentity = Object.freeze({
  id: 'browser',
  name: '@rea/provider-browser',
  version: BROWSER_PROVIDER_VERSION,
});

/** The analysis profile of a browser operation. */
export function browserProfile(name: string, settings: JsonObject) {
  return createAnalysisProfile({ name: `browser-${name}`, version: '1', settings });
}

/** `endpoint`: "owned" or a loopback DevTools endpoint. */
export const EndpointSchema = z
  .string()
  .min(1)
  .max(512)
  .default('owned')
  .describe(
    '"owned" (default: a headless Chromium REA starts on first use and keeps for the session) or a loopback DevTools endpoint such as http://127.0.0.1:9222.',
  );

/** `timeout_ms`: the whole call's deadline. */
export const TimeoutSchema = z.number().int().min(1000).max(600_000).default(30_000).describe('Call deadline, ms.');

/** True when `text` is an origin exactly as a URL gives it: scheme, host and any port, and nothing else. */
function isOrigin(text: string): boolean {
  try {
    const origin = new URL(text).origin;
    return origin !== 'null' && origin === text;
  } catch {
    return false;
  }
}

/**
 * An origin written with the root path (`http://127.0.0.1:8080/`) as the origin itself, the form the
 * filters compare with; anything else as it is, for {@link isOrigin} to judge.
 */
function withoutRootSlash(text: string): string {
  const bare = text.slice(0, -1);
  return text.endsWith('/') && isOrigin(bare) ? bare : text;
}

/**
 * `origins`: optional origin filters, each an origin (`http://127.0.0.1:8080`, or with the root path
 * `/`, taken as the same origin); `what` says what they filter. A value that is no origin is refused,
 * naming it.
 */
export function originsSchema(what: string) {
  return z
    .array(
      z
        .string()
        .min(1)
        .max(512)
        .overwrite(withoutRootSlash)
        .refine(isOrigin, {
          error: (issue) =>
            `${JSON.stringify(issue.input)} is not an origin: scheme://host[:port], with no path (http://127.0.0.1:8080)`,
        }),
    )
    .max(64)
    .optional()
    .describe(`Origins (scheme://host[:port]) to report: ${what}`);
}

/** `origins` of a tool that lists targets: only targets whose page is of these origins. */
export const OriginsSchema = originsSchema('only targets whose page is of one of them.');

/** What a browser tool body receives: the open browser, its deadline signal, and a page connection tracker. */
export interface BrowserRun {
  handle: BrowserHandle;
  signal: AbortSignal;
  /** Registers a connection to close when the call ends. */
  track(connection: CdpConnection): CdpConnection;
  /**
   * Registers a tab REA opened for this call (`page`, once attached, is its connection): it is kept for
   * later calls when the call succeeds and its page still answers, and closed otherwise.
   */
  opened(targetId: string, page?: CdpConnection): void;
}

/** How long a tab REA opened has to answer at the end of its call before it is found busy and closed. */
export const TAB_ANSWER_MS = 1000;
/** How long closing a tab REA does not keep may take at the end of its call. */
const TAB_CLOSE_MS = 5000;
/** How long a call stopped by its deadline or cancellation waits for its tabs to be gone. */
const STOPPED_TAB_CLOSE_MS = 2000;

function within<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Closes the tabs REA opened for a call that it does not keep: all of them when `keep` is false (the
 * call failed), else those whose page does not answer within {@link TAB_ANSWER_MS} (a page that never
 * yields would otherwise keep its renderer busy for the rest of the session). Never rejects.
 */
async function settleTabs(
  browser: CdpConnection,
  tabs: ReadonlyMap<string, CdpConnection | null>,
  keep: boolean,
): Promise<string[]> {
  const kept: string[] = [];
  await Promise.all(
    [...tabs].map(async ([targetId, page]) => {
      const answers =
        keep && page !== null
          ? await within(
              page.send('Runtime.evaluate', { expression: '0', returnByValue: true }).then(
                () => true,
                () => false,
              ),
              TAB_ANSWER_MS,
            )
          : false;
      if (answers === true) return void kept.push(targetId);
      await within(closeTab(browser, targetId), TAB_CLOSE_MS);
    }),
  );
  return kept;
}

/**
 * Adds the tabs a call kept to its owned browser's kept tabs, and closes the least recently used past
 * {@link MAX_KEPT_TABS}. Never rejects.
 */
async function limitTabs(handle: BrowserHandle, kept: readonly string[]): Promise<void> {
  const owned = handle.owned;
  if (owned === null || kept.length === 0) return;
  for (const targetId of kept) useTab(owned.tabs, targetId, true);
  if (owned.tabs.order.length <= MAX_KEPT_TABS) return;
  const live = await handle.targets().catch(() => null);
  if (live === null) return;
  const excess = tabsPastLimit(owned.tabs, new Set(live.map((t) => t.targetId)));
  await Promise.all(excess.map((targetId) => within(closeTab(handle.browser, targetId), TAB_CLOSE_MS)));
}

/**
 * Asks the browser to close a tab and waits until it no longer lists it: a page that never yields does
 * not acknowledge its unload, so the browser closes it only after its own unload timeout.
 */
async function closeTab(browser: CdpConnection, targetId: string): Promise<void> {
  try {
    await browser.send('Target.closeTarget', { targetId });
    for (;;) {
      const listed = (await browser.send('Target.getTargets'))['targetInfos'] as Array<{ targetId: string }>;
      if (!listed.some((t) => t.targetId === targetId)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch {
    // The tab or the browser is gone already.
  }
}

/**
 * Opens the endpoint, runs `body` within `timeoutMs` and the call's cancellation, and closes every
 * connection afterwards; an owned browser stays with the session (or, where the host keeps none, ends
 * with the call's supervisor). A tab the call opened stays with it only when the call succeeds and the
 * tab's page still answers ({@link BrowserRun.opened}). A dropped connection is
 * `target_unavailable`; the deadline is `provider_timeout`; cancellation is `cancelled`.
 */
export async function withBrowser<T>(
  endpoint: string,
  timeoutMs: number,
  phase: string,
  context: ToolContext,
  body: (run: BrowserRun) => Promise<T>,
): Promise<T> {
  const connections: CdpConnection[] = [];
  // Tabs REA opened for this call, with their page connections once attached.
  const tabs = new Map<string, CdpConnection | null>();
  let closing = false;
  // The closing of the tabs of a call stopped by its deadline or cancellation.
  let stoppedTabs: Promise<unknown> = Promise.resolve();
  try {
    return await withDeadline(
      async (deadline) => {
        // Aborted by the deadline, the caller, or the browser going away, whichever comes first.
        const controller = new AbortController();
        const signal = controller.signal;
        deadline.addEventListener('abort', () => controller.abort(deadline.reason), { once: true });
        const handle = await openBrowser(endpoint, context, signal);
        connections.push(handle.browser);
        signal.addEventListener(
          'abort',
          () => {
            // The tabs start closing at once and the page connections close, so nothing more is sent to
            // them. The browser connection stays until the tabs are gone, for a little while at most (a
            // page that never yields takes the browser's unload timeout to close): the call's end waits.
            stoppedTabs = within(settleTabs(handle.browser, tabs, false), STOPPED_TAB_CLOSE_MS);
            connections.forEach((c) => void (c === handle.browser ? undefined : c.close()));
          },
          { once: true },
        );
        handle.browser.onDisconnect(() => {
          if (!closing) controller.abort(connectionLost(phase, new Error('the DevTools connection closed')));
        });
        const track = (connection: CdpConnection) => (connections.push(connection), connection);
        const opened = (targetId: string, page?: CdpConnection) => {
          // A tab the browser opened just after the call was stopped goes too.
          if (signal.aborted && !tabs.has(targetId)) {
            const gone = within(closeTab(handle.browser, targetId), STOPPED_TAB_CLOSE_MS);
            stoppedTabs = Promise.all([stoppedTabs, gone]);
          }
          tabs.set(targetId, page ?? null);
        };
        const stopped = new Promise<never>((_, reject) =>
          signal.aborted
            ? reject(signal.reason)
            : signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        );
        stopped.catch(() => undefined);
        try {
          const result = await Promise.race([body({ handle, signal, track, opened }), stopped]);
          await Promise.race([settleTabs(handle.browser, tabs, true).then((kept) => limitTabs(handle, kept)), stopped]);
          return result;
        } catch (error) {
          if (!signal.aborted) await settleTabs(handle.browser, tabs, false);
          throw signal.aborted ? signal.reason : connectionLost(phase, error);
        }
      },
      { ms: timeoutMs, signal: context.signal, phase, providerId: 'browser', setting: 'timeout_ms' },
    );
  } finally {
    await stoppedTabs;
    closing = true;
    await Promise.all(connections.map((c) => c.close()));
  }
}

import { z } from 'zod';
import { createAnalysisProfile } from '@rea/evidence';
import type { JsonObject, ProviderIdentity } from '@rea/evidence';
import { withDeadline } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import { connectionLost, openBrowser } from '../browser.js';
import type { BrowserHandle } from '../browser.js';
import type { CdpConnection } from '../engine/cdp.js';
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
}

/**
 * Opens the endpoint, runs `body` within `timeoutMs` and the call's cancellation, and closes every
 * connection afterwards; an owned browser stays with the session (or, where the host keeps none, ends
 * with the call's supervisor). A dropped connection is
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
  let closing = false;
  try {
    return await withDeadline(
      async (deadline) => {
        // Aborted by the deadline, the caller, or the browser going away, whichever comes first.
        const controller = new AbortController();
        const signal = controller.signal;
        deadline.addEventListener('abort', () => controller.abort(deadline.reason), { once: true });
        const handle = await openBrowser(endpoint, context, signal);
        connections.push(handle.browser);
        signal.addEventListener('abort', () => connections.forEach((c) => void c.close()), { once: true });
        handle.browser.onDisconnect(() => {
          if (!closing) controller.abort(connectionLost(phase, new Error('the DevTools connection closed')));
        });
        const track = (connection: CdpConnection) => (connections.push(connection), connection);
        const stopped = new Promise<never>((_, reject) =>
          signal.aborted
            ? reject(signal.reason)
            : signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        );
        stopped.catch(() => undefined);
        try {
          return await Promise.race([body({ handle, signal, track }), stopped]);
        } catch (error) {
          throw signal.aborted ? signal.reason : connectionLost(phase, error);
        }
      },
      { ms: timeoutMs, signal: context.signal, phase, providerId: 'browser', setting: 'timeout_ms' },
    );
  } finally {
    closing = true;
    await Promise.all(connections.map((c) => c.close()));
  }
}

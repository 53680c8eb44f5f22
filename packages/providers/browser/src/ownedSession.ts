import { ReaError } from '@rea/evidence';
import { readSettings, withDeadline } from '@rea/provider-kit';
import type { ProcessSupervisor, SessionResources, ToolContext } from '@rea/provider-kit';
import { findChrome, launchOwned } from './owned.js';
import type { OwnedBrowser } from './owned.js';
import { BROWSER_SETTINGS } from './settings.js';

/** The key the session's owned browser is kept under. */
const KEY = 'browser/owned';

function starter(): (supervisor: ProcessSupervisor, s: AbortSignal) => Promise<OwnedBrowser> {
  const settings = readSettings([BROWSER_SETTINGS], process.env) as {
    chromePath: string | null;
    browserStartTimeoutMs: number;
  };
  const executable = findChrome(settings.chromePath);
  return (supervisor, s) =>
    withDeadline((deadline) => launchOwned(supervisor, executable, deadline), {
      ms: settings.browserStartTimeoutMs,
      signal: s,
      phase: 'browser startup',
      providerId: 'browser',
      setting: 'REA_BROWSER_START_TIMEOUT_MS',
    });
}

async function kept(resources: SessionResources, start: ReturnType<typeof starter>, signal: AbortSignal) {
  return resources.obtain(
    KEY,
    async (supervisor, s) => {
      const browser = await start(supervisor, s);
      // A browser that goes away on its own (crash, killed) is ended at once, profile included; the
      // next call starts another.
      void browser.process.exited.then(() => resources.release(KEY, browser).catch(() => undefined));
      return { value: browser };
    },
    signal,
  );
}

/**
 * The owned browser of a call. Where the host keeps a session (`context.sessionResources`), it is the
 * session's: started on first use, reused by later calls, ended with the session (or at once when it
 * exits on its own). Otherwise it is the call's own, ended with the call's supervisor.
 */
export async function ownedBrowser(context: ToolContext, signal: AbortSignal): Promise<OwnedBrowser> {
  const start = starter();
  const resources = context.sessionResources;
  if (resources === undefined) return start(context.supervisor, signal);
  const browser = await kept(resources, start, signal);
  if (browser.process.exit() === null) return browser;
  // It exited between the check and now: end it and start a fresh one for this call.
  await resources.release(KEY, browser);
  return kept(resources, start, signal);
}

/**
 * Ends the session's kept browser when it is `browser` (found unreachable); false where the browser is
 * the call's own, which ends with the call.
 */
export async function forgetOwned(context: ToolContext, browser: OwnedBrowser): Promise<boolean> {
  if (context.sessionResources === undefined) return false;
  await context.sessionResources.release(KEY, browser);
  return true;
}

/** Refuses `target_id` with endpoint "owned" where the browser lives only for the call. */
export function requireSessionBrowser(context: ToolContext): void {
  if (context.sessionResources !== undefined) return;
  throw new ReaError(
    'invalid_request',
    'With endpoint "owned" outside an MCP session the browser lives only for this call, so target_id names no tab in it.',
    {
      details: { reason: 'no-session-browser' },
      remediation:
        'Pass url to load the page, or use the MCP server, where the owned browser and its tabs last for the session.',
    },
  );
}

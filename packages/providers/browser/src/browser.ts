import { get } from 'node:http';
import { ReaError, isReaError } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import { connectCdp } from './engine/cdp.js';
import type { CdpConnection } from './engine/cdp.js';
import { resolveEndpoint } from './endpoint.js';
import { MAX_KEPT_TABS, useTab } from './keptTabs.js';
import type { Endpoint } from './endpoint.js';
import type { OwnedBrowser } from './owned.js';
import { forgetOwned, ownedBrowser } from './ownedSession.js';

/** One target of a DevTools endpoint, as Target.getTargets reports it. */
export interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  title: string;
  attached: boolean;
  /** An out-of-process iframe: the frame it is embedded in (its own frame id is its target id). */
  parentFrameId?: string;
}

/** A connected browser: its endpoint, the browser-level connection and, for "owned", its process. */
export interface BrowserHandle {
  endpoint: Endpoint;
  host: string;
  port: number;
  browser: CdpConnection;
  owned: OwnedBrowser | null;
  /** Every target of the browser. */
  targets(): Promise<TargetInfo[]>;
  /** A connection to one target by id: `not_found` naming the id when the browser has no such target. */
  attach(targetId: string): Promise<CdpConnection>;
  /**
   * {@link BrowserHandle.attach}, also answering the browser's targets as listed while attaching. The
   * listing and a page connection go out together; a target that is not a page is then reconnected
   * at its own path.
   */
  attachListing(targetId: string): Promise<{ connection: CdpConnection; targets: TargetInfo[] }>;
}

function versionPath(host: string, port: number, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = get({ host, port, path: '/json/version', signal, timeout: 10_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk.slice(0, 65_536 - body.length)));
      response.on('end', () => {
        try {
          const url = new URL(String((JSON.parse(body) as { webSocketDebuggerUrl?: unknown }).webSocketDebuggerUrl));
          resolve(url.pathname);
        } catch {
          reject(new Error('the endpoint does not answer /json/version like a DevTools endpoint'));
        }
      });
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', reject);
  });
}

function unreachable(label: string, error: unknown): ReaError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ReaError('target_unavailable', `No DevTools endpoint answers at ${label}: ${reason}.`, {
    details: { reason: 'endpoint-unreachable', endpoint: label, cause: reason },
    remediation:
      'Start the browser with --remote-debugging-port=<port> on this machine and pass that port, or use endpoint "owned".',
  });
}

async function connectTo(host: string, port: number, path: string): Promise<CdpConnection> {
  const wsHost = host.includes(':') ? `[${host}]` : host;
  return connectCdp(`ws://${wsHost}:${port}${path}`);
}

/** Opens the endpoint: for "owned", the session's headless Chromium (started on first use) or the call's own. */
export async function openBrowser(value: string, context: ToolContext, signal: AbortSignal): Promise<BrowserHandle> {
  const endpoint = await resolveEndpoint(value);
  let host = '127.0.0.1';
  let port: number;
  let owned: OwnedBrowser | null = null;
  let browser: CdpConnection;
  const label = endpoint.kind === 'owned' ? 'the owned browser' : endpoint.label;
  if (endpoint.kind === 'owned') {
    for (let attempt = 0; ; attempt += 1) {
      owned = await ownedBrowser(context, signal);
      port = owned.port;
      try {
        browser = await connectTo(host, port, owned.browserPath);
        break;
      } catch (error) {
        // A kept browser that died since the last call: end it, and start another once.
        if (attempt > 0 || !(await forgetOwned(context, owned))) throw unreachable(label, error);
      }
    }
  } else {
    [host, port] = [endpoint.host, endpoint.port];
    const path = await versionPath(host, port, signal).catch((error: unknown) => {
      throw signal.aborted ? signal.reason : unreachable(endpoint.label, error);
    });
    browser = await connectTo(host, port, path).catch((error: unknown) => {
      throw unreachable(label, error);
    });
  }
  const targets = async (): Promise<TargetInfo[]> => {
    const result = await browser.send('Target.getTargets');
    return (result['targetInfos'] as TargetInfo[]).filter((t) => t.type !== 'browser' && t.type !== 'browser_ui');
  };
  const pagePath = (kind: string, targetId: string) =>
    `/devtools/${kind === 'page' || kind === 'iframe' ? 'page' : kind}/${targetId}`;
  const attachListing = async (targetId: string) => {
    const optimistic = connectTo(host, port, pagePath('page', targetId)).then(
      (connection) => ({ connection }),
      (error: unknown) => ({ error }),
    );
    const discard = () => optimistic.then((o) => ('connection' in o ? o.connection.close() : undefined));
    const known = await targets().catch(async (error: unknown) => {
      await discard();
      throw error;
    });
    const target = known.find((t) => t.targetId === targetId);
    if (target === undefined) {
      await discard();
      if (owned?.tabs.closed.includes(targetId)) {
        throw new ReaError(
          'not_found',
          `The owned browser closed tab ${targetId}: it keeps at most ${MAX_KEPT_TABS} tabs, closing the least recently used first.`,
          {
            details: { reason: 'tab-limit', target_id: targetId, endpoint: label, limit: MAX_KEPT_TABS },
            remediation: 'Pass url to load the page again in a new tab.',
          },
        );
      }
      throw new ReaError('not_found', `The browser at ${label} has no target ${targetId}.`, {
        details: { reason: 'unknown-target', target_id: targetId, endpoint: label, targets: known.length },
        remediation: 'Call list_browser_targets on the same endpoint and pass one of its target ids.',
      });
    }
    if (owned !== null) useTab(owned.tabs, targetId);
    if (pagePath(target.type, targetId) !== pagePath('page', targetId)) {
      await discard();
      return { connection: await connectTo(host, port, pagePath(target.type, targetId)), targets: known };
    }
    const opened = await optimistic;
    if ('error' in opened) throw opened.error;
    return { connection: opened.connection, targets: known };
  };
  return {
    endpoint,
    host,
    port,
    browser,
    owned,
    targets,
    attachListing,
    attach: async (targetId) => (await attachListing(targetId)).connection,
  };
}

/** A lost DevTools connection in the middle of `phase`, as a typed error. */
export function connectionLost(phase: string, error: unknown): ReaError {
  if (isReaError(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new ReaError('target_unavailable', `The browser stopped answering during ${phase}: ${reason}.`, {
    details: { reason: 'browser-gone', phase, cause: reason },
    remediation: 'Check that the browser is still running; with endpoint "owned", retry the call.',
  });
}

import { get } from 'node:http';
import { ReaError, isReaError } from '@rea/evidence';
import { readSettings, withDeadline } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import { connectCdp } from './engine/cdp.js';
import type { CdpConnection } from './engine/cdp.js';
import { resolveEndpoint } from './endpoint.js';
import type { Endpoint } from './endpoint.js';
import { findChrome, launchOwned } from './owned.js';
import type { OwnedBrowser } from './owned.js';
import { BROWSER_SETTINGS } from './settings.js';

/** One target of a DevTools endpoint, as Target.getTargets reports it. */
export interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
  title: string;
  attached: boolean;
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

/** Opens the endpoint: for "owned", starts a headless Chromium through the call's supervisor. */
export async function openBrowser(value: string, context: ToolContext, signal: AbortSignal): Promise<BrowserHandle> {
  const endpoint = await resolveEndpoint(value);
  let host: string;
  let port: number;
  let path: string;
  let owned: OwnedBrowser | null = null;
  if (endpoint.kind === 'owned') {
    const settings = readSettings([BROWSER_SETTINGS], process.env) as {
      chromePath: string | null;
      browserStartTimeoutMs: number;
    };
    const executable = findChrome(settings.chromePath);
    owned = await withDeadline((s) => launchOwned(context.supervisor, executable, s), {
      ms: settings.browserStartTimeoutMs,
      signal,
      phase: 'browser startup',
      providerId: 'browser',
      setting: 'REA_BROWSER_START_TIMEOUT_MS',
    });
    [host, port, path] = ['127.0.0.1', owned.port, owned.browserPath];
  } else {
    [host, port] = [endpoint.host, endpoint.port];
    path = await versionPath(host, port, signal).catch((error: unknown) => {
      throw signal.aborted ? signal.reason : unreachable(endpoint.label, error);
    });
  }
  const label = endpoint.kind === 'owned' ? 'the owned browser' : endpoint.label;
  const browser = await connectTo(host, port, path).catch((error: unknown) => {
    throw unreachable(label, error);
  });
  const targets = async (): Promise<TargetInfo[]> => {
    const result = await browser.send('Target.getTargets');
    return (result['targetInfos'] as TargetInfo[]).filter((t) => t.type !== 'browser' && t.type !== 'browser_ui');
  };
  return {
    endpoint,
    host,
    port,
    browser,
    owned,
    targets,
    attach: async (targetId) => {
      const known = await targets();
      if (!known.some((t) => t.targetId === targetId)) {
        throw new ReaError('not_found', `The browser at ${label} has no target ${targetId}.`, {
          details: { reason: 'unknown-target', target_id: targetId, endpoint: label, targets: known.length },
          remediation: 'Call list_browser_targets on the same endpoint and pass one of its target ids.',
        });
      }
      const kind = known.find((t) => t.targetId === targetId)!.type;
      return connectTo(host, port, `/devtools/${kind === 'page' || kind === 'iframe' ? 'page' : kind}/${targetId}`);
    },
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

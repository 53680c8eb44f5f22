import type { TargetInfo } from '../browser.js';
import type { CdpConnection, CdpParams } from '../engine/cdp.js';
import type { WebPageInspection } from './schema.js';
import type { Steps } from './step.js';

type ServiceWorker = WebPageInspection['service_workers'][number];

interface Version {
  registrationId: string;
  scriptURL: string;
  status: string;
  runningStatus: string;
  targetId?: string;
}

/**
 * The service workers the browser knows, from its ServiceWorker domain: script URL, scope, lifecycle
 * status (e.g. `activated`), running status and worker target id, for those `allowed` by origin. If
 * the domain does not answer, the service worker targets are listed with scope and states unknown.
 */
export async function readServiceWorkers(
  page: CdpConnection,
  steps: Steps,
  targets: readonly TargetInfo[],
  allowed: (url: string) => boolean,
): Promise<ServiceWorker[]> {
  const scopes = new Map<string, string | null>();
  const versions = new Map<string, Version>();
  page.on('ServiceWorker.workerRegistrationUpdated', (p: CdpParams) => {
    for (const r of p['registrations'] as Array<{ registrationId: string; scopeURL: string; isDeleted: boolean }>)
      scopes.set(r.registrationId, r.isDeleted ? null : r.scopeURL);
  });
  page.on('ServiceWorker.workerVersionUpdated', (p: CdpParams) => {
    for (const v of p['versions'] as Array<Version & { versionId: string }>) versions.set(v.versionId, v);
  });
  // The domain answers enable first and reports what it knows right after: one more round trip waits for it.
  const read = await steps.run('service-workers-unread', 'service workers', async () => {
    await page.send('ServiceWorker.enable');
    await page.send('Runtime.evaluate', { expression: '0', silent: true });
    await page.send('ServiceWorker.disable');
    return true;
  });
  if (read === null) {
    return targets
      .filter((t) => t.type === 'service_worker' && allowed(t.url))
      .map((t) => ({ id: t.targetId, url: t.url, scope: null, status: null, running_status: null }));
  }
  return [...versions.values()]
    .filter((v) => v.status !== 'redundant' && scopes.get(v.registrationId) != null && allowed(v.scriptURL))
    .map((v) => ({
      id: v.targetId ?? null,
      url: v.scriptURL,
      scope: scopes.get(v.registrationId) ?? null,
      status: v.status,
      running_status: v.runningStatus,
    }));
}

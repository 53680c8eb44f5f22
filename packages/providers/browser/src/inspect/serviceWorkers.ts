import type { TargetInfo } from '../browser.js';
import type { CdpConnection, CdpParams } from '../engine/cdp.js';
import type { WebPageInspection } from './schema.js';
import type { Steps } from './step.js';

type ServiceWorker = WebPageInspection['service_workers'][number];

/** How long the read waits for the browser's reports after enabling its ServiceWorker domain. */
const SETTLE_MS = 2_000;

interface Version {
  registrationId: string;
  scriptURL: string;
  status: string;
  runningStatus: string;
  targetId?: string;
}

/**
 * The service workers the browser knows, from its ServiceWorker domain: script URL, scope, lifecycle
 * status (the protocol's ServiceWorkerVersionStatus: `new`, `installing`, `installed`, `activating`,
 * `activated`), running status (ServiceWorkerVersionRunningStatus: `stopped`, `starting`, `running`,
 * `stopping`) and worker target id, for those `allowed` by origin; `redundant` versions (replaced or
 * failed) are left out. If
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
  let reported = false;
  let changed = (): void => undefined;
  page.on('ServiceWorker.workerRegistrationUpdated', (p: CdpParams) => {
    reported = true;
    for (const r of p['registrations'] as Array<{ registrationId: string; scopeURL: string; isDeleted: boolean }>)
      scopes.set(r.registrationId, r.isDeleted ? null : r.scopeURL);
    changed();
  });
  page.on('ServiceWorker.workerVersionUpdated', (p: CdpParams) => {
    for (const v of p['versions'] as Array<Version & { versionId: string }>) versions.set(v.versionId, v);
    changed();
  });
  // The browser reports what it knows after answering enable, on its own schedule: the read waits
  // until as many registrations as the page itself can see have been reported, each with a version,
  // for up to `SETTLE_MS`; after that the list is marked incomplete.
  const complete = (expected: number): boolean => {
    const live = [...scopes.entries()].filter(([, scope]) => scope !== null).map(([id]) => id);
    const versioned = new Set([...versions.values()].map((v) => v.registrationId));
    return (reported || expected === 0) && live.length >= expected && live.every((id) => versioned.has(id));
  };
  const expected = await steps.run('service-workers-unread', 'service workers', async () => {
    await page.send('ServiceWorker.enable');
    const counted = await page.send('Runtime.evaluate', {
      expression:
        'navigator.serviceWorker ? navigator.serviceWorker.getRegistrations().then((r) => r.length, () => 0) : 0',
      awaitPromise: true,
      returnByValue: true,
      silent: true,
    });
    return Number((counted['result'] as { value?: unknown } | undefined)?.value ?? 0) || 0;
  });
  if (expected !== null && !complete(expected)) {
    await steps.settleWithin(
      new Promise<void>((resolve) => (changed = () => complete(expected) && resolve())),
      SETTLE_MS,
    );
    changed = () => undefined;
    if (!complete(expected))
      steps.limit(
        'service-workers-incomplete',
        `The browser had not reported every service worker within ${SETTLE_MS} ms; those it reported are listed.`,
        'service_workers',
      );
  }
  if (expected === null) {
    return targets
      .filter((t) => t.type === 'service_worker' && allowed(t.url))
      .map((t) => ({ id: t.targetId, url: t.url, scope: null, status: null, running_status: null }));
  }
  await steps.run('service-workers-unread', 'service workers (disabling the domain)', () =>
    page.send('ServiceWorker.disable'),
  );
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

// The README names every status a service worker can be reported with: each value of the DevTools
// protocol's ServiceWorkerVersionStatus (but `redundant`, which is left out) and ServiceWorkerVersionRunningStatus.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Protocol {
  domains: Array<{ domain: string; types?: Array<{ id: string; enum?: string[] }> }>;
}

const here = dirname(fileURLToPath(import.meta.url));
const protocol = JSON.parse(
  readFileSync(
    join(dirname(createRequire(import.meta.url).resolve('chrome-remote-interface')), 'lib', 'protocol.json'),
    'utf8',
  ),
) as Protocol;
const statuses = (id: string) =>
  protocol.domains.find((d) => d.domain === 'ServiceWorker')!.types!.find((t) => t.id === id)!.enum!;
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');

describe('the service worker statuses of the README', () => {
  it('should name every lifecycle status the protocol reports, and say redundant workers are left out', () => {
    const lifecycle = readme.match(/lifecycle `status` \(([^)]*)\)/)![1]!;
    const named = [...lifecycle.matchAll(/`([a-z]+)`/g)].map((m) => m[1]);
    expect(statuses('ServiceWorkerVersionStatus')).toContain('new');
    for (const status of statuses('ServiceWorkerVersionStatus')) expect(named).toContain(status);
    expect(lifecycle).toMatch(/`redundant`[^;]*left out/);
  });

  it('should name every running status the protocol reports', () => {
    const running = readme.match(/`running_status` \(([^)]*)\)/)![1]!;
    const named = [...running.matchAll(/`([a-z]+)`/g)].map((m) => m[1]);
    expect(named.sort()).toEqual([...statuses('ServiceWorkerVersionRunningStatus')].sort());
  });
});

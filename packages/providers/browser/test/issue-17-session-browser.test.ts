import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { isReaError } from '@rea/evidence';
import { createSessionResources } from '@rea/provider-kit';
import type { SessionResourcesHost } from '@rea/provider-kit';
import { inspectWebPageTool, listBrowserTargetsTool } from '@rea/provider-browser';
import { processAlive } from '@rea/test-helpers';
import { call, processesUsing, servePages } from './support.js';

const PAGE = '<!doctype html><title>kept</title><script src="/app.js"></script><p>one</p>';

/** The session's owned browser: its launcher pid and profile directory (from its command line). */
function sessionBrowser(resources: SessionResourcesHost): { pid: number; profile: string } | null {
  const live = resources.lineage().find((o) => o.status !== 'unavailable' && o.launcher_alive);
  if (!live || live.status === 'unavailable') return null;
  const argv = readFileSync(`/proc/${live.launcher.pid}/cmdline`, 'utf8').split('\0');
  const profile = argv.find((a) => a.startsWith('--user-data-dir='))!.slice('--user-data-dir='.length);
  return { pid: live.launcher.pid, profile };
}

const gone = (browser: { pid: number; profile: string }) =>
  !processAlive(browser.pid) && !existsSync(browser.profile) && processesUsing(browser.profile).length === 0;

type Inspection = {
  normalized_result: { target: { id: string }; document: { title: string } };
  limitations: Array<{ kind: string }>;
};
const evidence = (result: Awaited<ReturnType<typeof call>>) => {
  if (result.error) throw result.error;
  if (result.outcome?.kind !== 'evidence') throw new Error('expected Evidence');
  return result.outcome.record;
};
const inspection = (result: Awaited<ReturnType<typeof call>>) => evidence(result) as unknown as Inspection;

let server: Awaited<ReturnType<typeof servePages>>;
let resources: SessionResourcesHost;
beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: PAGE },
    '/app.js': { type: 'text/javascript', body: 'window.app = () => 1;' },
    // Never yields.
    '/busy': { type: 'text/html', body: '<!doctype html><title>busy</title><script>for (;;) {}</script>' },
  });
  resources = createSessionResources();
});
afterAll(async () => {
  await resources?.closeAll();
  await server?.close();
});

describe('the owned browser of a session', () => {
  it('should start on first use, keep its tabs for later calls, and end with the session', async () => {
    const first = inspection(
      await call(inspectWebPageTool, { url: `${server.origin}/` }, { sessionResources: resources }),
    );
    const browser = sessionBrowser(resources)!;
    expect(browser).not.toBeNull();
    expect(first.normalized_result.document.title).toBe('kept');
    const tab = first.normalized_result.target.id;

    const listed = await call(listBrowserTargetsTool, {}, { sessionResources: resources });
    expect(listed.error).toBeNull();
    const targets = (evidence(listed).normalized_result as { targets: Array<{ id: string; url: string }> }).targets;
    expect(targets).toContainEqual(expect.objectContaining({ id: tab, url: `${server.origin}/` }));

    // The tab the first call opened, observed as it is by a later call, in the same browser.
    const again = inspection(await call(inspectWebPageTool, { target_id: tab }, { sessionResources: resources }));
    expect(again.normalized_result.target.id).toBe(tab);
    expect(again.normalized_result.document.title).toBe('kept');
    expect(again.limitations.map((l) => l.kind)).toContain('loaded-before-attach');
    expect(sessionBrowser(resources)).toEqual(browser);

    const ending = createSessionResources();
    const closing = resources;
    resources = ending;
    // Ended and accounted for: nothing is reported remaining, and the browser's processes and profile are
    // gone (its helper processes, orphaned when it is killed, are reaped by the host's init meanwhile).
    expect(await closing.closeAll()).toEqual([]);
    for (let i = 0; i < 400 && !gone(browser); i += 1) await new Promise((r) => setTimeout(r, 25));
    expect({
      launcher: processAlive(browser.pid),
      profile: existsSync(browser.profile),
      users: processesUsing(browser.profile),
    }).toEqual({ launcher: false, profile: false, users: [] });
  }, 180_000);

  it("should start a new browser for the next call when the kept one dies, removing the dead one's profile", async () => {
    expect(
      inspection(await call(inspectWebPageTool, { url: `${server.origin}/` }, { sessionResources: resources }))
        .normalized_result.document.title,
    ).toBe('kept');
    const dead = sessionBrowser(resources)!;
    process.kill(dead.pid, 'SIGKILL');
    const next = inspection(
      await call(inspectWebPageTool, { url: `${server.origin}/` }, { sessionResources: resources }),
    );
    expect(next.normalized_result.document.title).toBe('kept');
    const live = sessionBrowser(resources)!;
    expect(live.pid).not.toBe(dead.pid);
    // The dead browser's end (its group and profile) was started when it exited; wait for it to finish.
    for (let i = 0; i < 400 && !gone(dead); i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(gone(dead)).toBe(true);
  }, 180_000);

  it('should close the tabs of a page still busy when its call ends, and keep the others', async () => {
    const quiet = inspection(
      await call(inspectWebPageTool, { url: `${server.origin}/` }, { sessionResources: resources }),
    );
    const busy: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const page = inspection(
        await call(
          inspectWebPageTool,
          { url: `${server.origin}/busy`, load_timeout_ms: 3000 },
          { sessionResources: resources },
        ),
      );
      expect(page.limitations.map((l) => l.kind)).toContain('page-unanswered');
      busy.push(page.normalized_result.target.id);
    }
    const listed = await call(listBrowserTargetsTool, {}, { sessionResources: resources });
    const ids = (evidence(listed).normalized_result as { targets: Array<{ id: string }> }).targets.map((t) => t.id);
    expect(ids).toContain(quiet.normalized_result.target.id);
    expect(ids.filter((id) => busy.includes(id))).toEqual([]);
    // A later call that names a closed tab is told it is gone.
    const gone = await call(inspectWebPageTool, { target_id: busy[0] }, { sessionResources: resources });
    expect(gone.error).toMatchObject({ code: 'not_found' });
  }, 180_000);

  it('should refuse target_id with "owned" where no session keeps the browser, before starting one', async () => {
    const refused = await call(inspectWebPageTool, { endpoint: 'owned', target_id: 'ABC' });
    expect(isReaError(refused.error) && refused.error.details['reason']).toBe('no-session-browser');
    expect(refused.dirs).toEqual([]);
    const both = await call(
      inspectWebPageTool,
      { url: `${server.origin}/`, target_id: 'ABC' },
      { sessionResources: resources },
    );
    expect(isReaError(both.error) && both.error.details['reason']).toBe('page-not-named');
  });
});

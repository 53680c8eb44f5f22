import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive, withTempDir } from '@rea/test-helpers';
import { connectReaMcp, processesUsing, servePages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({ '/': { type: 'text/html', body: '<!doctype html><title>session page</title><p>x</p>' } });
});
afterAll(() => server?.close());

/** The owned browsers under `tmp`: each profile directory with the pids of the processes naming it. */
function browsersUnder(tmp: string): Array<{ profile: string; pids: number[] }> {
  return readdirSync(tmp)
    .filter((name) => name.startsWith('rea-chrome-'))
    .map((name) => ({ profile: join(tmp, name), pids: processesUsing(join(tmp, name)) }));
}

/** Whether `pid` runs: it exists and is not a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z';
  } catch {
    return false;
  }
}

type Result = { isError?: boolean; structuredContent?: unknown; content?: unknown };
function normalized<T>(result: Result): T {
  if (result.isError) throw new Error(`the call failed: ${JSON.stringify(result.content)}`);
  return (result.structuredContent as { normalized_result: T }).normalized_result;
}

describe('the owned browser over the MCP server', () => {
  it('should be reused by later calls of a session, its tabs addressable, and gone with the session', async () => {
    await withTempDir(async (tmp) => {
      const { client, serverPid } = await connectReaMcp(tmp, 'rea-browser-session-e2e');
      let browsers: ReturnType<typeof browsersUnder>;
      try {
        const url = `${server.origin}/`;
        const first = normalized<{ target: { id: string } }>(
          (await client.callTool({ name: 'inspect_web_page', arguments: { url } })) as Result,
        );
        browsers = browsersUnder(tmp);
        expect(browsers).toHaveLength(1);
        expect(browsers[0]!.pids.length).toBeGreaterThan(0);

        const listed = normalized<{ targets: Array<{ id: string; url: string }> }>(
          (await client.callTool({ name: 'list_browser_targets', arguments: {} })) as Result,
        );
        expect(listed.targets).toContainEqual(expect.objectContaining({ id: first.target.id, url }));
        const again = normalized<{ target: { id: string }; document: { title: string } }>(
          (await client.callTool({ name: 'inspect_web_page', arguments: { target_id: first.target.id } })) as Result,
        );
        expect(again).toMatchObject({ target: { id: first.target.id }, document: { title: 'session page' } });
        // Still the one browser, and the same processes, as after the first call.
        const now = browsersUnder(tmp);
        expect(now.map((b) => b.profile)).toEqual([browsers[0]!.profile]);
        expect(now[0]!.pids).toEqual(expect.arrayContaining(browsers[0]!.pids.filter(running)));
      } finally {
        await client.close();
      }
      // The client ends the server's stdin; the server ends the session, then exits.
      for (let i = 0; i < 400 && processAlive(serverPid); i += 1) await new Promise((r) => setTimeout(r, 25));
      expect(processAlive(serverPid)).toBe(false);
      expect(existsSync(browsers[0]!.profile)).toBe(false);
      // Killed before the server exited; the kernel ends each one right after.
      const pids = browsers[0]!.pids;
      for (let i = 0; i < 400 && pids.some(running); i += 1) await new Promise((r) => setTimeout(r, 25));
      expect(pids.filter(running)).toEqual([]);
      expect(browsersUnder(tmp)).toEqual([]);
    });
  }, 180_000);
});

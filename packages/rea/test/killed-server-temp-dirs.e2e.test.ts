// `rea mcp` killed by SIGKILL while it owns a headless Chromium (kept by the session) or an LLDB trace
// (a call in progress): nothing runs in the server after such a kill, so the supervisor's watchdog, a
// shell outside it, must end the owned processes and then remove their temporary folders
// (`rea-chrome-…`, `rea-lldb-…`) from the server's TMPDIR.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixture } from '../../providers/lldb/test/support.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bin.cjs');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each process of the table: its parent and whether it runs (present, neither zombie nor dead). */
function processTable(): Map<number, { ppid: number; running: boolean }> {
  const table = new Map<number, { ppid: number; running: boolean }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), { ppid: Number(fields[1]), running: fields[0] !== 'Z' && fields[0] !== 'X' });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** The running descendants of `pid` in the process table now. */
function descendants(pid: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const pending = [pid];
  for (let parent = pending.pop(); parent !== undefined; parent = pending.pop()) {
    for (const [child, entry] of table) {
      if (entry.ppid === parent && entry.running) {
        found.push(child);
        pending.push(child);
      }
    }
  }
  return found;
}

const running = (pid: number): boolean => processTable().get(pid)?.running === true;

/** Polls `check` every 50 ms for up to `ms`; resolves whether it became true. */
async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (check()) return true;
  return check();
}

interface Served {
  client: Client;
  pid: number;
}

async function serve(tmp: string): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp'],
    env: { ...process.env, TMPDIR: tmp } as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'rea-killed-server-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/**
 * SIGKILLs the server once `owned` (its temporary folder) exists and it has descendants, then waits a
 * bounded time; resolves to what is left: the descendants still running and whether the folder exists.
 */
async function killAndWait(
  served: Served,
  owned: string,
): Promise<{ before: number[]; left: number[]; folder: boolean }> {
  const before = descendants(served.pid);
  process.kill(served.pid, 'SIGKILL');
  await eventually(() => !running(served.pid), 10_000);
  await eventually(() => !before.some(running) && !existsSync(owned), 15_000);
  await served.client.close().catch(() => undefined);
  return { before, left: before.filter(running), folder: existsSync(owned) };
}

// The servers' TMPDIR, of this file's own; short, as Chromium's singleton socket path must be.
let tmp = '';
const entries = (pattern: RegExp) => readdirSync(tmp).filter((name) => pattern.test(name));
let page: Server;
let origin = '';

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rea-k-'));
  page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>kept</title>'));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => page.close(resolve));
  const left = entries(/^\.?rea[-_.]/i);
  rmSync(tmp, { recursive: true, force: true });
  expect(left).toEqual([]);
});

describe('rea mcp killed by SIGKILL', () => {
  it('should have its session browser ended and its rea-chrome- profile folder removed', async () => {
    const served = await serve(tmp);
    const result = await served.client.callTool(
      { name: 'inspect_web_page', arguments: { url: `${origin}/` } },
      { timeout: 120_000 },
    );
    expect(result.isError ? result.content : null).toBeNull();
    // The session keeps its browser, with its profile, after the call.
    const profiles = entries(/^rea-chrome-/);
    expect(profiles).toHaveLength(1);
    const profile = join(tmp, profiles[0]!);
    const { before, left, folder } = await killAndWait(served, profile);
    expect(before.length).toBeGreaterThan(0);
    expect(left).toEqual([]);
    expect(folder).toBe(false);
    expect(entries(/^rea-chrome-/)).toEqual([]);
  }, 180_000);

  it('should have a trace in progress (LLDB and its program) ended and its rea-lldb- folder removed', async () => {
    const served = await serve(tmp);
    const pidFile = join(tmp, 'traced.pid');
    const call = served.client
      .callTool(
        {
          name: 'observe_native_calls',
          arguments: {
            executable: fixture('stall'),
            args: [pidFile],
            targets: [{ kind: 'function', name: 'traced' }],
            deadline_ms: 120_000,
          },
        },
        { timeout: 180_000 },
      )
      .catch(() => null);
    // The program writes its pid once it has been traced three times: LLDB then holds it.
    expect(await eventually(() => existsSync(pidFile), 60_000)).toBe(true);
    const program = Number(readFileSync(pidFile, 'utf8'));
    const folders = entries(/^rea-lldb-/);
    expect(folders).toHaveLength(1);
    const { before, left, folder } = await killAndWait(served, join(tmp, folders[0]!));
    expect(before).toContain(program);
    expect(left).toEqual([]);
    expect(folder).toBe(false);
    expect(entries(/^rea-lldb-/)).toEqual([]);
    await call;
  }, 180_000);
});

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createCallSupervisor, createProcessSupervisor, executeTool } from '@rea/provider-kit';
import type {
  AnyToolContract,
  ProcessSupervisor,
  SessionResources,
  SessionResourcesHost,
  ToolOutcome,
} from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';
import { chromeFlags, findChrome } from '@rea/provider-browser';

/** A route: a body with its content type, or a handler of its own. */
export type Route =
  | { type: string; body: string; headers?: Record<string, string> }
  | ((req: IncomingMessage, res: ServerResponse) => void);

/** Serves `routes` from 127.0.0.1 on a free port. */
export async function servePages(
  routes: Record<string, Route>,
): Promise<{ origin: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const route = routes[(req.url ?? '/').split('?')[0]!];
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    if (typeof route === 'function') return route(req, res);
    res.writeHead(200, { 'content-type': route.type, ...route.headers }).end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Pids of every process whose command line names `dir` (an owned browser's profile). */
export function processesUsing(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(join('/proc', entry, 'cmdline'), 'utf8').includes(dir)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** One call with its own supervisor; reports the temp dirs the call created, so a test can check them. */
export async function call(
  tool: AnyToolContract,
  input: unknown,
  options: {
    signal?: AbortSignal;
    progress?: (message: string) => void;
    onDir?: (dir: string) => void;
    sessionResources?: SessionResources;
  } = {},
): Promise<{ outcome: ToolOutcome | null; error: unknown; dirs: string[] }> {
  const base = createCallSupervisor();
  const dirs: string[] = [];
  const supervisor = new Proxy(base, {
    get(target, key) {
      if (key === 'createTempDir')
        return async (prefix: string) => {
          const dir = await target.createTempDir(prefix);
          dirs.push(dir);
          options.onDir?.(dir);
          return dir;
        };
      return Reflect.get(target, key) as unknown;
    },
  }) as ProcessSupervisor;
  const context = quietToolContext({
    supervisor,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.progress ? { progress: { report: options.progress } } : {}),
    ...(options.sessionResources ? { sessionResources: options.sessionResources } : {}),
  });
  try {
    return { outcome: await executeTool(tool, input, context), error: null, dirs };
  } catch (error) {
    return { outcome: null, error, dirs };
  }
}

/** True when every owned browser of a call is gone: no process names its profile, the profile is removed. */
export function ownedBrowsersGone(dirs: readonly string[]): boolean {
  return dirs.every((dir) => !existsSync(dir) && processesUsing(dir).length === 0);
}

/**
 * A headless Chromium a test file shares (started like an owned one, with `flags` applied to the owned
 * browser's flags), with its DevTools endpoint.
 */
export async function startSharedBrowser(flags: (owned: string[]) => string[] = (owned) => owned): Promise<{
  endpoint: string;
  supervisor: ProcessSupervisor;
  profile: string;
}> {
  const supervisor = createProcessSupervisor();
  const profile = await supervisor.createTempDir('test-chrome');
  await supervisor.start(findChrome(process.env['REA_CHROME_PATH'] || null), flags(chromeFlags(profile)), {
    env: { TMPDIR: profile },
  });
  for (let i = 0; i < 2400; i++) {
    try {
      const [port] = readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n');
      if (port) return { endpoint: `http://127.0.0.1:${port}`, supervisor, profile };
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await supervisor.closeAll();
  throw new Error('the shared test browser did not start');
}

/** The built `rea` command line. */
export const REA_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'rea', 'dist', 'bin.cjs');

/** A real MCP client connected over stdio to `rea mcp`, with its temporary files under `tmp`. */
export async function connectReaMcp(tmp: string, name: string): Promise<{ client: Client; serverPid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [REA_BIN, 'mcp'],
    env: { ...process.env, TMPDIR: tmp } as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, serverPid: transport.pid! };
}

/**
 * The page targets of the browser a session's resources hold, as the browser's own DevTools HTTP endpoint
 * lists them (/json/list), sorted.
 */
export async function sessionBrowserPages(resources: SessionResourcesHost): Promise<string[]> {
  const live = resources.lineage().find((o) => o.status !== 'unavailable' && o.launcher_alive);
  if (live === undefined || live.status === 'unavailable') throw new Error('no session browser');
  const argv = readFileSync(`/proc/${live.launcher.pid}/cmdline`, 'utf8').split('\0');
  const profile = argv.find((a) => a.startsWith('--user-data-dir='))!.slice('--user-data-dir='.length);
  const [port] = readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n');
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    id: string;
    type: string;
  }>;
  return list
    .filter((t) => t.type === 'page')
    .map((t) => t.id)
    .sort();
}

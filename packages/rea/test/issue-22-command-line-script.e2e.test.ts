// What every `rea <command>` reads and loads before it does its work: the command line's script
// (dist/cli.cjs) holds no data that only some commands use (the DevTools protocol description, the
// advertised catalogs: JSON files in dist/cli-data/, read when a command first needs them), and the
// Node.js built-ins that only some commands use (child processes, compression, worker threads, sockets)
// are loaded when first used. A preload reports, as the process exits, the built-ins Node.js loaded and
// the files required through Node.js's CommonJS loader.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTempDir } from '@rea/test-helpers';
import { startReaHttp } from './httpEntry.js';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const bin = join(dist, 'bin.cjs');
const script = join(dist, 'cli.cjs');

/** A preload writing { builtins, required } to REA_TEST_LOADED as the process exits, and on SIGUSR2. */
const REPORTER =
  'data:text/javascript,' +
  encodeURIComponent(`
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(process.execPath);
const report = () => writeFileSync(process.env.REA_TEST_LOADED, JSON.stringify({
  builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)),
  required: Object.keys(require.cache),
}));
process.on('exit', report);
process.on('SIGUSR2', report);
`);

interface Loaded {
  builtins: string[];
  required: string[];
}

/** Runs `rea ...args` with the reporter; returns its status, output and what it loaded. */
function run(
  dir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): { status: number | null; stdout: string; loaded: Loaded } {
  const report = join(dir, `loaded-${args[0]}.json`);
  const result = spawnSync(process.execPath, ['--import', REPORTER, bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env, REA_TEST_LOADED: report },
    timeout: 60_000,
  });
  return {
    status: result.status,
    stdout: result.stdout,
    loaded: JSON.parse(readFileSync(report, 'utf8')) as Loaded,
  };
}

/** The report at `path` once it is written whole (waits up to 10 s). */
async function reportOf(path: string): Promise<Loaded> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Loaded;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const dataFiles = (loaded: Loaded) =>
  loaded.required.filter((file) => file.startsWith(join(dist, 'cli-data'))).map((file) => file.slice(dist.length + 1));

/** Built-ins that a command needs only for some inputs or some tools. */
// perf_hooks: paced work reads monotonicMs(), not the global performance.
const DEFERRED = ['child_process', 'dgram', 'fs/promises', 'perf_hooks', 'worker_threads', 'zlib'];

describe('the command line script', () => {
  it('should hold the on-demand data as complete files, not in the script', () => {
    const source = readFileSync(script, 'latin1');
    const fromPackage = createRequire(import.meta.url);
    const protocolPath = createRequire(fromPackage.resolve('@rea/provider-browser')).resolve(
      'chrome-remote-interface/lib/protocol.json',
    );
    const protocol = JSON.parse(readFileSync(protocolPath, 'utf8')) as { domains: Array<{ domain: string }> };
    expect(JSON.parse(readFileSync(join(dist, 'cli-data', 'devtools-protocol.json'), 'utf8'))).toEqual(protocol);
    // A command of the protocol that no code of REA names appears in the description only.
    expect(JSON.stringify(protocol)).toContain('getPartialAXTree');
    expect(source).not.toContain('getPartialAXTree');
    for (const [file, profile] of [
      ['advertisedFull.json', 'full'],
      ['advertisedCompact.json', 'compact'],
    ] as const) {
      const catalog = JSON.parse(readFileSync(join(dist, 'cli-data', file), 'utf8')) as {
        profile: string;
        tools: Array<{ name: string }>;
      };
      expect(catalog.profile).toBe(profile);
      expect(catalog.tools.length).toBeGreaterThan(50);
      expect(source).not.toContain(`profile":"${profile}"`);
    }
    // What dist/commandLine.js decodes as Latin-1 must be ASCII.
    expect(/[\u0080-\uffff]/.test(source)).toBe(false);
  });

  it('should analyze a program without reading on-demand data or loading deferred built-ins', async () => {
    await withTempDir(async (dir) => {
      const { status, stdout, loaded } = run(dir, ['analyze', '/usr/bin/ls', '--format', 'json', '--quiet']);
      expect(status).toBe(0);
      expect(JSON.parse(stdout)).toBeTruthy();
      expect(dataFiles(loaded)).toEqual([]);
      for (const name of DEFERRED) expect(loaded.builtins).not.toContain(name);
      // crypto is used by every analysis (digests): it is loaded, as it was before.
      expect(loaded.builtins).toContain('crypto');
    });
  }, 90_000);

  it('should not open stderr for a quiet analysis that succeeds (no socket modules on a pipe)', async () => {
    await withTempDir(async (dir) => {
      const report = join(dir, 'loaded-quiet.json');
      const output = join(dir, 'report.json');
      const out = openSync(output, 'w');
      try {
        // stdout to a file, stderr a pipe: only stderr could make Node.js load its socket modules.
        const result = spawnSync(
          process.execPath,
          ['--import', REPORTER, bin, 'analyze', '/usr/bin/ls', '--format', 'json', '--quiet'],
          { stdio: ['ignore', out, 'pipe'], encoding: 'utf8', env: { ...process.env, REA_TEST_LOADED: report } },
        );
        expect(result.status).toBe(0);
        expect(result.stderr).toBe('');
      } finally {
        closeSync(out);
      }
      expect((JSON.parse(readFileSync(output, 'utf8')) as { records: unknown[] }).records.length).toBeGreaterThan(0);
      const loaded = JSON.parse(readFileSync(report, 'utf8')) as Loaded;
      expect(loaded.builtins).not.toContain('net');
    });
  }, 90_000);

  it('should load a deferred built-in when a command uses it', async () => {
    await withTempDir(async (dir) => {
      // A deflated entry: yauzl inflates it with zlib.
      const text = join(dir, 'words.txt');
      writeFileSync(text, 'deflate me '.repeat(500));
      const zip = spawnSync('zip', ['-q', '-j', join(dir, 'words.zip'), text]);
      expect(zip.status).toBe(0);
      // The output directory is made in the temporary directory: this test's own.
      const { status, stdout, loaded } = run(
        dir,
        ['extract-artifact', join(dir, 'words.zip'), '--format', 'json', '--quiet'],
        { TMPDIR: dir },
      );
      expect(status).toBe(0);
      const output = (JSON.parse(stdout) as { local: { output_directory: string } }).local.output_directory;
      expect(output.startsWith(dir)).toBe(true);
      expect(readFileSync(join(output, 'words.txt'), 'utf8')).toBe('deflate me '.repeat(500));
      expect(loaded.builtins).toContain('zlib');
    });
  }, 90_000);

  it('should read the advertised catalog from its file when the command line serves MCP over HTTP', async () => {
    await withTempDir(async (dir) => {
      const report = join(dir, 'loaded-http.json');
      const entry = await startReaHttp('127.0.0.1:0', [], {
        nodeOptions: ['--import', REPORTER],
        env: { REA_TEST_LOADED: report },
      });
      try {
        expect(entry.url).not.toBeNull();
        const post = (body: object) =>
          fetch(entry.url!, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify(body),
          });
        const init = await post({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
        });
        const session = init.headers.get('mcp-session-id');
        await init.text();
        const list = await fetch(entry.url!, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
        const text = await list.text();
        const full = JSON.parse(readFileSync(join(dist, 'cli-data', 'advertisedFull.json'), 'utf8')) as {
          tools: Array<{ name: string }>;
        };
        for (const tool of full.tools) expect(text).toContain(`"name":"${tool.name}"`);
        // A server stopped by a signal need not run exit handlers: it reports what it loaded when asked.
        entry.child.kill('SIGUSR2');
        const loaded = await reportOf(report);
        expect(dataFiles(loaded)).toEqual([join('cli-data', 'advertisedFull.json')]);
      } finally {
        await entry.stop();
      }
    });
  }, 90_000);
});

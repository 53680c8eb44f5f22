// What `rea mcp` loads before and after its first tool call: initialize and tools/list come from the
// bundled start-up file alone; the call path, @rea/evidence, @rea/provider-kit, zod and the providers load
// on the first tools/call, from the installed packages (the same module instances the providers use).
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTempDir } from '@rea/test-helpers';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.js');
const tracer = join(here, 'fixtures', 'traceModules.mjs');

type Message = { id?: number; result?: { tools?: unknown[]; isError?: boolean } };

/** Runs `rea mcp` with the module tracer; returns the modules loaded at tools/list and after one call. */
async function trace(file: string): Promise<{ atList: string[]; afterCall: string[]; tools: number }> {
  const child = spawn(process.execPath, ['--import', tracer, bin, 'mcp'], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, REA_TEST_MODULE_TRACE: file },
  });
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const loaded = () => readFileSync(file, 'utf8').trim().split('\n');
  let atList: string[] = [];
  let tools = 0;
  let buffer = '';
  child.stdout.setEncoding('utf8');
  const done = new Promise<string[]>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`rea mcp exited (${code}) early`)));
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, index)) as Message;
        buffer = buffer.slice(index + 1);
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          atList = loaded();
          tools = message.result?.tools?.length ?? 0;
          send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'binary_session', arguments: {} } });
        } else if (message.id === 3) {
          if (message.result?.isError === true) reject(new Error('binary_session failed'));
          else resolve(loaded());
        }
      }
    });
  });
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'trace', version: '1' } },
  });
  try {
    const afterCall = await done;
    return { atList, afterCall, tools };
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
}

const under = (urls: string[], pattern: RegExp) => urls.filter((url) => pattern.test(url));

describe('rea mcp start-up', () => {
  it('should answer initialize and tools/list from the start-up bundle, loading the call path on the first call', async () => {
    await withTempDir(async (dir) => {
      const { atList, afterCall, tools } = await trace(join(dir, 'modules.txt'));
      expect(tools).toBeGreaterThan(30);
      // Before any tool call: this package's bundle and the precomputed catalog, nothing else of REA's or
      // of the SDK's dependencies (no zod, no Evidence machinery, no provider).
      const rea = join(here, '..', 'dist');
      expect(atList.filter((url) => !url.startsWith(`file://${rea}/`))).toEqual([]);
      expect(atList.length).toBeLessThanOrEqual(6);
      // The first call loads the call path and what it needs from the installed packages.
      expect(under(afterCall, /\/server\/dist\/calls\.js$/)).toHaveLength(1);
      expect(under(afterCall, /\/evidence\/dist\/index\.js$/)).toHaveLength(1);
      expect(under(afterCall, /\/provider-kit\/dist\/index\.js$/)).toHaveLength(1);
      expect(under(afterCall, /\/zod\/v4\/classic\/schemas\.js$/)).toHaveLength(1);
    });
  }, 60_000);
});

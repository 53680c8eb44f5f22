// What `rea mcp` loads before and after its first tool call: initialize and tools/list come from the
// start-up part of rea's bundle alone; the call path (dist/mcpCalls.js), @rea/evidence, @rea/provider-kit
// and the providers load on the first tools/call from the same bundle's chunks, sharing its one zod,
// never from the installed packages' hundreds of separate modules.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTempDir } from '@rea/test-helpers';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
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

/** Text only the bundled engine libraries of the browser and JavaScript providers hold, by library. */
const BROWSER_ENGINES: Array<[string, RegExp]> = [
  // chrome-remote-interface's DevTools Protocol description (half a megabyte of object literal).
  ['chrome-remote-interface', /\bdomain"?:\s*"Accessibility"/],
  // pngjs's decoder.
  ['pngjs', /Invalid file signature/],
  // meriyah's scanner (the JavaScript analysis's parser).
  ['meriyah', /Unterminated template literal/],
];

/** The browser engine libraries a loaded bundle file holds. */
const enginesIn = (url: string) => {
  const text = readFileSync(fileURLToPath(url), 'utf8');
  return BROWSER_ENGINES.filter(([, marker]) => marker.test(text)).map(([name]) => name);
};

describe('rea mcp start-up and first call', () => {
  let traced: { atList: string[]; afterCall: string[]; tools: number };
  beforeAll(async () => {
    await withTempDir(async (dir) => {
      traced = await trace(join(dir, 'modules.txt'));
    });
  }, 120_000);

  it('should answer tools/list from the start-up chunks and the first call from the same bundle', () => {
    const { atList, afterCall, tools } = traced;
    expect(tools).toBeGreaterThan(30);
    const rea = `file://${join(here, '..', 'dist')}/`;
    // Before any tool call: this package's bundle and the precomputed catalog, nothing of the call path.
    expect(atList.filter((url) => !url.startsWith(rea))).toEqual([]);
    expect(under(atList, /\/mcpCalls\.js$/)).toEqual([]);
    expect(atList.length).toBeLessThanOrEqual(24);
    // The first call loads the call path from the bundle: nothing from another package's dist/ and no
    // second zod from node_modules.
    expect(afterCall.filter((url) => !url.startsWith(rea))).toEqual([]);
    expect(under(afterCall, /\/mcpCalls\.js$/)).toEqual([`${rea}mcpCalls.js`]);
    expect(afterCall.length).toBeLessThanOrEqual(80);
    expect(new Set(afterCall).size).toBe(afterCall.length);
  });

  it('should not evaluate a browser or JavaScript engine library for a call that uses neither', () => {
    // The bundle holds chrome-remote-interface and pngjs for the browser tools and meriyah for the
    // JavaScript analysis; binary_session loads both providers but connects to no browser, decodes no
    // image and parses no script.
    const { afterCall } = traced;
    expect(afterCall.some((url) => /\/chunk-[A-Z0-9]+\.js$/.test(url))).toBe(true);
    expect(afterCall.flatMap(enginesIn)).toEqual([]);
  });
});

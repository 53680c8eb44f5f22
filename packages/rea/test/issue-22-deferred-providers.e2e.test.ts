// `rea mcp` knows its tools-only providers' tools and the composition's native tools by their facts:
// the first binary_session loads none of their definitions (only the deep providers, whose probes it
// reports), the first call of one of them loads its provider alone, and binary_session reports the same
// availability for every tool before and after.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCompositionTools, createDefaultProviders } from 'rea-mcp';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const tracer = join(here, 'fixtures', 'traceModules.mjs');

type Result = { isError?: boolean; structuredContent?: { tool_availability?: unknown[] } };
type Message = { id?: number; result?: Result };

/** What one `rea mcp` process loaded after each of a sequence of tool calls, and their results. */
interface Traced {
  loadedAfter: string[][];
  results: Result[];
}

async function trace(file: string, calls: Array<{ name: string; arguments: object }>): Promise<Traced> {
  const child = spawn(process.execPath, ['--import', tracer, bin, 'mcp'], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: { ...process.env, REA_TEST_MODULE_TRACE: file },
  });
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const loaded = () => readFileSync(file, 'utf8').trim().split('\n');
  const traced: Traced = { loadedAfter: [], results: [] };
  const call = (index: number) => send({ jsonrpc: '2.0', id: 10 + index, method: 'tools/call', params: calls[index] });
  let buffer = '';
  child.stdout.setEncoding('utf8');
  const done = new Promise<void>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`rea mcp exited (${code}) early`)));
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      let index;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, index)) as Message;
        buffer = buffer.slice(index + 1);
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          call(0);
        } else if (message.id !== undefined && message.id >= 10) {
          traced.results.push(message.result ?? {});
          traced.loadedAfter.push(loaded());
          if (traced.results.length === calls.length) resolve();
          else call(traced.results.length);
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
    await done;
    return traced;
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
}

/** The providers (`native` for the composition) whose tool definitions (a `title:` property) a loaded file holds. */
function definitionsIn(urls: readonly string[], titles: ReadonlyMap<string, string>): string[] {
  const found = new Set<string>();
  for (const url of urls) {
    const text = readFileSync(fileURLToPath(url), 'utf8');
    for (const [title, provider] of titles) {
      // A definition's object literal (`title: "…"`), not the precomputed catalog's JSON (`"title":"…"`).
      const literal = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (new RegExp(`\\btitle:\\s*["'\`]${literal}["'\`]`).test(text)) found.add(provider);
    }
  }
  return [...found].sort();
}

describe('issue 22: rea mcp loads a tool definition with the first call of one of its tools', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-deferred-'));
  let traced: Traced;
  let opened: Traced;
  const titles = new Map<string, string>();
  beforeAll(async () => {
    for (const provider of await createDefaultProviders()) {
      if (provider.kind === 'tools') for (const tool of provider.tools()) titles.set(tool.title, provider.id);
    }
    for (const tool of await createCompositionTools()) titles.set(tool.title, 'native');
    const file = join(dir, 'sample.txt');
    writeFileSync(file, 'an artifact to inventory\n');
    traced = await trace(join(dir, 'modules.txt'), [
      { name: 'binary_session', arguments: {} },
      { name: 'inspect_artifact', arguments: { path: file } },
      { name: 'binary_session', arguments: {} },
    ]);
    // The embedded engine reads the layout through @rea/artifact/layout: an open builds no artifact tool.
    opened = await trace(join(dir, 'opened.txt'), [
      { name: 'open_binary', arguments: { path: process.execPath } },
      { name: 'binary_session', arguments: {} },
    ]);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should load no tool definitions for binary_session, and only artifact for inspect_artifact', () => {
    expect(new Set(titles.values())).toEqual(
      new Set(['android', 'android-device', 'artifact', 'browser', 'javascript', 'lldb', 'native']),
    );
    expect(traced.results.map((result) => result.isError ?? false)).toEqual([false, false, false]);
    const [afterSession, afterInspect] = traced.loadedAfter;
    expect(definitionsIn(afterSession!, titles)).toEqual([]);
    expect(definitionsIn(afterInspect!, titles)).toEqual(['artifact']);
  });

  it('should open a native binary without loading the artifact tools', () => {
    expect(opened.results.map((result) => result.isError ?? false)).toEqual([false, false]);
    const [afterOpen] = opened.loadedAfter;
    expect(afterOpen!.some((url) => /capstone|chunk-/.test(url))).toBe(true);
    expect(definitionsIn(afterOpen!, titles)).not.toContain('artifact');
  });

  it('should report every tool alike before and after its provider loaded', () => {
    const [before, , after] = traced.results;
    expect(before!.structuredContent!.tool_availability!.length).toBeGreaterThan(70);
    expect(after!.structuredContent!.tool_availability).toEqual(before!.structuredContent!.tool_availability);
  });
});

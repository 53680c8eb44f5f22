/* eslint-disable @typescript-eslint/no-explicit-any -- messages are JSON explored by path in assertions */
// The other long tools keep the server answering too: over a real stdio pipe, with the official MCP
// client and the built `rea mcp`, a `binary_session` sent once `open_binary` has started the embedded
// engine on a large generated shared object (30,000 procedures calling one another) is answered
// before the open completes; the overview and the disassembly of the open binary are answered
// alongside it and report what was generated; an open cancelled once its engine has
// started leaves no binary open and the next open succeeds; and a `binary_session` sent once
// `analyze_javascript_application` reports progress on a large application is answered before the
// analysis completes. Ordering only: nothing here measures time (bench/responsiveness does).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { bigApplication } from '../../javascript/test/helpers/fixtures.js';
import { REA_BIN } from './httpEntry.js';

const FUNCTIONS = 30_000;

const isSessionAnswer = (message: any): boolean => message?.result?.structuredContent?.ledger !== undefined;
const answerTo = (id: unknown) => (message: any) => message?.id === id && ('result' in message || 'error' in message);

/** A shared object whose function i calls function i + 1 (the last returns), assembled by gcc. */
function chainedLibrary(dir: string): string {
  const lines = ['.text'];
  for (let i = 0; i < FUNCTIONS; i += 1) {
    // Hidden: calls bind within the library (no PLT stubs), so each function is one procedure.
    lines.push(`.globl f${i}`, `.hidden f${i}`, `.type f${i},@function`, `f${i}:`);
    if (i + 1 < FUNCTIONS) lines.push(`call f${i + 1}`);
    lines.push('ret');
  }
  const source = join(dir, 'chain.s');
  writeFileSync(source, `${lines.join('\n')}\n`);
  const library = join(dir, 'chain.so');
  execFileSync('gcc', ['-shared', '-nostdlib', '-o', library, source]);
  return library;
}

describe('issue 15: open_binary, the native tools and the JavaScript analysis keep rea mcp answering (stdio)', () => {
  let dir: string;
  let library: string;
  let client: Client;
  let received: any[];
  let sent: any[];
  const call = (name: string, args: Record<string, unknown> = {}, options: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }, { timeout: 240_000, ...options });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-long-tools-'));
    library = chainedLibrary(dir);
    client = new Client({ name: 'rea-long-tools-e2e', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'ignore' });
    await client.connect(transport);
    received = [];
    sent = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (message: any, extra?: any) => {
      received.push(message);
      (deliver as (m: unknown, e?: unknown) => void)(message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = (message: any) => {
      sent.push(message);
      return send(message);
    };
  }, 120_000);
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Calls `name`, and once `ready(progress message)` holds sends binary_session; both results and the wire order. */
  async function alongside(name: string, args: Record<string, unknown>, ready: (message: string) => boolean) {
    let reached!: () => void;
    const atPoint = new Promise<void>((resolve) => (reached = resolve));
    received.length = 0;
    sent.length = 0;
    const heavy = call(name, args, {
      onprogress: (update: any) => {
        if (ready(String(update?.message ?? ''))) reached();
      },
    });
    await Promise.race([atPoint, heavy]);
    const session = call('binary_session');
    const [heavyResult, sessionResult] = (await Promise.all([heavy, session])) as any[];
    const heavyId = sent.find((m) => m?.method === 'tools/call' && m?.params?.name === name)?.id;
    return {
      heavyResult,
      sessionResult,
      sessionAt: received.findIndex(isSessionAnswer),
      heavyAt: received.findIndex(answerTo(heavyId)),
    };
  }

  it('should answer binary_session before open_binary of a large library completes', async () => {
    const outcome = await alongside('open_binary', { path: library, provider_id: 'capstone' }, (m) =>
      /starting capstone|parsing the layout|analysing the code/.test(m),
    );
    await call('close_binary');
    expect(outcome.heavyResult.isError).toBeFalsy();
    expect(outcome.sessionResult.isError).toBeFalsy();
    expect(outcome.sessionAt).toBeGreaterThanOrEqual(0);
    expect(outcome.heavyAt).toBeGreaterThan(outcome.sessionAt);
  }, 300_000);

  it('should leave no binary open when open_binary is cancelled once the engine started, and open it next time', async () => {
    const controller = new AbortController();
    const outcome = await call(
      'open_binary',
      { path: library, provider_id: 'capstone' },
      {
        signal: controller.signal,
        onprogress: (update: any) => {
          if (/starting capstone|parsing the layout|analysing the code/.test(String(update?.message ?? '')))
            controller.abort(new Error('stop'));
        },
      },
    ).then(
      () => 'completed',
      () => 'rejected',
    );
    expect(outcome).toBe('rejected');
    // A call on the open binary fails: the cancelled open published nothing.
    const overview = (await call('binary_overview')) as any;
    expect(overview.isError).toBe(true);
    const reopened = (await call('open_binary', { path: library, provider_id: 'capstone' })) as any;
    await call('close_binary');
    expect(reopened.isError).toBeFalsy();
  }, 300_000);

  it('should answer the overview and the disassembly alongside binary_session', async () => {
    const opened = (await call('open_binary', { path: library, provider_id: 'capstone' })) as any;
    expect(opened.isError).toBeFalsy();
    const [overview, assembly, session] = (await Promise.all([
      call('binary_overview'),
      call('procedure_assembly', { procedure: 'f0' }),
      call('binary_session'),
    ]).finally(() => call('close_binary'))) as any[];
    expect(overview.isError).toBeFalsy();
    expect(assembly.isError).toBeFalsy();
    expect(session.isError).toBeFalsy();
    expect(JSON.stringify(overview.structuredContent)).toContain(`"procedure_count":${FUNCTIONS}`);
    // f0 is `call f1; ret`.
    const listing = JSON.stringify(assembly.structuredContent);
    expect(listing).toContain('"mnemonic":"call"');
    expect(listing).toContain('"mnemonic":"ret"');
  }, 300_000);

  it('should answer binary_session before analyze_javascript_application of a large application completes', async () => {
    const app = bigApplication(dir, 60_000);
    const outcome = await alongside('analyze_javascript_application', { path: app, detail: 'summary' }, () => true);
    expect(outcome.heavyResult.isError).toBeFalsy();
    expect(outcome.sessionResult.isError).toBeFalsy();
    expect(outcome.sessionAt).toBeGreaterThanOrEqual(0);
    expect(outcome.heavyAt).toBeGreaterThan(outcome.sessionAt);
  }, 300_000);
});

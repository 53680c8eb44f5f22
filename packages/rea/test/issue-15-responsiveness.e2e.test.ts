/* eslint-disable @typescript-eslint/no-explicit-any -- messages are JSON explored by path in assertions */
// A heavy call must not hold the server: over a real stdio pipe, with the official MCP client and the
// built `rea mcp`, a `binary_session` sent while `inspect_artifact` inventories a large ZIP is answered
// before the inventory is (and, when it was sent in the first half, before the progress of the later
// half), and one sent while `inspect_binary_layout` parses a large ELF is answered before that call
// completes. A
// heavy call cancelled at several points (AbortSignal on callTool) adds nothing to the ledger: the same
// call, not cancelled, then adds exactly what one call adds; the server logs that it stopped, as cancelled.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { bigElf } from '../../artifact/test/helpers/bigElf.js';
import { buildZip } from '../../artifact/test/helpers/zipWriter.js';
import { REA_BIN } from './httpEntry.js';

// Stored one-byte files with short names: every local header and its data fit in the first MiB of the
// archive, so the inventory reads them all from one cached block, with no file read in between.
const ENTRIES = 24_000;
const SYMBOLS = 300_000;

/** The entry count a progress notification of `inspect_artifact` reports, or null. */
function inventoried(message: any): number | null {
  if (message?.method !== 'notifications/progress') return null;
  const found = /(\d+) entries inventoried/.exec(String(message.params?.message ?? ''));
  return found ? Number(found[1]) : null;
}

const isSessionAnswer = (message: any): boolean => message?.result?.structuredContent?.ledger !== undefined;

describe('issue 15: a heavy call keeps the server responsive and a cancelled one retains nothing (rea mcp, stdio)', () => {
  let dir: string;
  let client: Client;
  let received: any[];
  /** The server's stderr log entries. */
  const logged: any[] = [];
  let zip: string;
  let elf: string;
  const call = (name: string, args: Record<string, unknown> = {}, options: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }, { timeout: 240_000, ...options });
  const records = async (): Promise<number> => {
    const answer = (await call('binary_session')) as any;
    expect(answer.isError).toBeFalsy();
    return answer.structuredContent.ledger.records as number;
  };

  // The ledger keeps one copy of identical records, so every call below gets a target of its own.
  let serial = 0;
  const elfBytes = bigElf(SYMBOLS);
  /** A fresh target for `name`: the large ZIP or ELF with one byte of its own. */
  const targetFor = (name: string): string => {
    serial += 1;
    const path = join(dir, `target-${serial}`);
    if (name === 'inspect_artifact') {
      const specs = Array.from({ length: ENTRIES }, (_, i) => ({
        name: i.toString(36).padStart(4, '0'),
        data: Buffer.from([(i + serial) % 251]),
        method: 0 as const,
      }));
      writeFileSync(path, buildZip(specs));
    } else {
      const bytes = Buffer.from(elfBytes);
      // A byte of the code section: the layout is unchanged, the file (and so the record) is not.
      bytes[0x1000] = serial % 251;
      writeFileSync(path, bytes);
    }
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-responsiveness-'));
    zip = targetFor('inspect_artifact');
    elf = targetFor('inspect_binary_layout');
    client = new Client({ name: 'rea-responsiveness-e2e', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'pipe' });
    let pendingLine = '';
    transport.stderr!.on('data', (chunk: Buffer) => {
      const lines = (pendingLine + chunk.toString('utf8')).split('\n');
      pendingLine = lines.pop()!;
      for (const line of lines) {
        try {
          logged.push(JSON.parse(line));
        } catch {
          // Not a log entry (the server writes one JSON object per line; anything else is not looked at).
        }
      }
    });
    await client.connect(transport);
    received = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (message: any, extra?: any) => {
      received.push(message);
      (deliver as (m: unknown, e?: unknown) => void)(message, extra);
    };
  });
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should answer binary_session while inspect_artifact is still inventorying a large ZIP', async () => {
    const before = await records();
    let firstCount = 0;
    let reached!: () => void;
    const inventorying = new Promise<void>((resolve) => (reached = resolve));
    received.length = 0;
    const heavy = call(
      'inspect_artifact',
      { path: zip, detail: 'summary' },
      {
        onprogress: (update: any) => {
          const count = inventoried({ method: 'notifications/progress', params: update });
          if (count !== null && firstCount === 0) {
            firstCount = count;
            reached();
          }
        },
      },
    );
    await inventorying;
    const session = call('binary_session');
    const [heavyResult, sessionResult] = (await Promise.all([heavy, session])) as any[];
    expect(heavyResult.isError).toBeFalsy();
    expect(sessionResult.isError).toBeFalsy();
    expect(heavyResult.structuredContent.operation).toBe('inspect_analysis_view');
    // In wire order: the session's answer arrives before the inventory's. Progress is paced in time, so
    // on a fast machine the first report (the one that sends binary_session) can come late in the
    // inventory; when it came in the first half, the answer also precedes the report of the later half.
    const answeredAt = received.findIndex(isSessionAnswer);
    const laterHalfAt = received.findIndex((m) => (inventoried(m) ?? 0) >= ENTRIES / 2);
    const finishedAt = received.findIndex((m) => m?.result?.structuredContent?.operation === 'inspect_analysis_view');
    expect(firstCount).toBeGreaterThan(0);
    expect(answeredAt).toBeGreaterThanOrEqual(0);
    expect(finishedAt).toBeGreaterThan(answeredAt);
    if (firstCount < ENTRIES / 2 && laterHalfAt >= 0) expect(laterHalfAt).toBeGreaterThan(answeredAt);
    // The answer carries the ledger as it stood: the heavy call had not retained anything yet.
    expect(sessionResult.structuredContent.ledger.records).toBe(before);
  }, 300_000);

  it('should answer binary_session before inspect_binary_layout of a large ELF completes', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    received.length = 0;
    const heavy = call('inspect_binary_layout', { path: elf, detail: 'summary' }, { onprogress: () => started() });
    await running;
    const session = call('binary_session');
    const [heavyResult, sessionResult] = (await Promise.all([heavy, session])) as any[];
    expect(heavyResult.isError).toBeFalsy();
    expect(sessionResult.isError).toBeFalsy();
    const answeredAt = received.findIndex(isSessionAnswer);
    const completedAt = received.findIndex(
      (m) => m?.result?.structuredContent?.operation === 'inspect_analysis_view' && !isSessionAnswer(m),
    );
    expect(answeredAt).toBeGreaterThanOrEqual(0);
    expect(completedAt).toBeGreaterThan(answeredAt);
  }, 300_000);

  /** Runs `name` once to completion and returns how many records it added to the ledger. */
  async function completeCall(name: string, args: Record<string, unknown>): Promise<number> {
    const before = await records();
    const result = (await call(name, args)) as any;
    expect(result.isError).toBeFalsy();
    return (await records()) - before;
  }
  const perCall = new Map<string, number>();

  /** Starts `name`, aborts it at `point`, and waits for the client to see it rejected. */
  async function cancelAt(
    name: string,
    args: Record<string, unknown>,
    point: 'sent' | 'started' | 'working',
  ): Promise<void> {
    const controller = new AbortController();
    let reached!: () => void;
    const atPoint = new Promise<void>((resolve) => (reached = resolve));
    const pending = call(name, args, {
      signal: controller.signal,
      onprogress: (update: any) => {
        // Working: the inventory has listed entries, or the layout's tables are being parsed.
        const working = /entries inventoried|parsing the headers/.test(String(update?.message ?? ''));
        if (point === 'started' || (point === 'working' && working)) reached();
      },
    });
    const outcome = pending.then(
      () => 'completed',
      () => 'rejected',
    );
    if (point !== 'sent') await Promise.race([atPoint, outcome]);
    const seen = logged.length;
    controller.abort(new Error('stop'));
    expect(await outcome).toBe('rejected');
    if (point === 'sent') return;
    // The server logs that the call stopped, as cancelled, and how long after the cancel arrived.
    const stopped = () => logged.slice(seen).find((e) => e.message === 'call cancelled by the client');
    for (let waited = 0; waited < 60_000 && !stopped(); waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(stopped()).toMatchObject({
      level: 'info',
      data: { tool: name, code: 'cancelled', stopped_after_ms: expect.any(Number) },
    });
  }

  it.each([
    ['inspect_artifact', 'sent'],
    ['inspect_artifact', 'started'],
    ['inspect_artifact', 'working'],
    ['inspect_binary_layout', 'started'],
    ['inspect_binary_layout', 'working'],
  ] as const)(
    'should retain nothing when %s is cancelled once %s',
    async (name, point) => {
      const args = (path: string) => ({ path, detail: 'summary' });
      if (!perCall.has(name)) perCall.set(name, await completeCall(name, args(targetFor(name))));
      expect(perCall.get(name)).toBeGreaterThanOrEqual(1);
      const before = await records();
      await cancelAt(name, args(targetFor(name)), point);
      // The same call on a twin target, not cancelled, runs after the cancelled one: a cancelled call
      // that kept running would have retained its records by the time this one has.
      await completeCall(name, args(targetFor(name)));
      expect((await records()) - before).toBe(perCall.get(name));
    },
    300_000,
  );
});

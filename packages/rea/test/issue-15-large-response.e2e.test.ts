/* eslint-disable @typescript-eslint/no-explicit-any -- messages are JSON explored by path in assertions */
// A large result does not hold the server: over a real stdio pipe, with the official MCP client and
// the built `rea mcp`, a `binary_session` sent once an inventory of a large ASAR has completed (its
// `completed` log entry is out, its result is being serialized and written as one frame, a chunk at a
// time) is answered right after that frame, which arrives complete: frames never interleave, and the
// request is not lost or held behind anything else. An inventory too large for one response answers
// `resource_constraint` naming the retained record, which a view then reads, and a `binary_session`
// sent while it runs is answered before it. Ordering only: nothing here measures time.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { writeAsar } from '@rea/test-helpers';
import { REA_BIN } from './httpEntry.js';

/** Entries of the inventory that fits one response, and of the one that does not. */
const FITS = 8_000;
const TOO_LARGE = 40_000;

function archive(path: string, entries: number): string {
  const files: Record<string, string> = {};
  for (let i = 0; i < entries; i += 1) files[`module-${i}.js`] = `module.exports = ${i};\n`;
  writeAsar(path, files);
  return path;
}

const answerTo = (id: unknown) => (message: any) => message?.id === id && ('result' in message || 'error' in message);
const logOf = (tool: string, text: string) => (message: any) =>
  message?.method === 'notifications/message' &&
  message.params?.data?.tool === tool &&
  message.params?.data?.message === text;

describe('issue 15: a large result keeps rea mcp answering (stdio)', () => {
  let dir: string;
  let client: Client;
  let received: any[];
  let sent: any[];
  const watchers = new Set<(message: any) => void>();
  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args }, { timeout: 240_000 }) as Promise<any>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-large-response-'));
    client = new Client({ name: 'rea-large-response-e2e', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'ignore' });
    await client.connect(transport);
    received = [];
    sent = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (message: any, extra?: any) => {
      received.push(message);
      for (const watcher of watchers) watcher(message);
      (deliver as (m: unknown, e?: unknown) => void)(message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = (message: any) => {
      sent.push(message);
      return send(message);
    };
    await client.setLoggingLevel('info');
  }, 120_000);
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Calls inspect_artifact on `path`; once a message satisfies `when`, sends binary_session. */
  async function inventoryAlongside(path: string, when: (message: any) => boolean) {
    received.length = 0;
    sent.length = 0;
    let session: Promise<any> | null = null;
    const watcher = (message: any): void => {
      if (session === null && when(message)) session = call('binary_session');
    };
    watchers.add(watcher);
    let heavy: any;
    try {
      heavy = await call('inspect_artifact', { path });
    } finally {
      watchers.delete(watcher);
    }
    expect(session).not.toBeNull();
    const sessionResult = await session!;
    const ids = sent.filter((m) => m?.method === 'tools/call').map((m) => m.id);
    return {
      heavy,
      sessionResult,
      heavyAt: received.findIndex(answerTo(ids[0])),
      sessionAt: received.findIndex(answerTo(ids[1])),
    };
  }

  it('should answer binary_session sent while a large result is written right after it, and deliver it whole', async () => {
    const path = archive(join(dir, 'fits.asar'), FITS);
    const outcome = await inventoryAlongside(path, logOf('inspect_artifact', 'completed'));
    expect(outcome.heavy.isError).toBeFalsy();
    expect(outcome.sessionResult.isError).toBeFalsy();
    // Large enough to be written in slices, and complete: every entry, the text the same JSON.
    const text = outcome.heavy.content[0].text as string;
    expect(text.length).toBeGreaterThan(256 * 1024);
    expect(JSON.parse(text)).toEqual(outcome.heavy.structuredContent);
    const names = JSON.stringify(outcome.heavy.structuredContent.normalized_result);
    for (const i of [0, FITS / 2, FITS - 1]) expect(names).toContain(`module-${i}.js`);
    // The frame is written as it is serialized: what is sent meanwhile follows it, next.
    expect(outcome.heavyAt).toBeGreaterThanOrEqual(0);
    expect(outcome.sessionAt).toBeGreaterThan(outcome.heavyAt);
    const between = received.slice(outcome.heavyAt + 1, outcome.sessionAt).filter((m) => 'result' in m || 'error' in m);
    expect(between).toEqual([]);
    // The retained record reads back whole as a resource (measured and written in slices too).
    const link = outcome.heavy.content.find((item: any) => item.type === 'resource_link');
    const read = await client.readResource({ uri: link.uri });
    expect(JSON.parse((read.contents[0] as any).text)).toEqual(outcome.heavy.structuredContent);
  }, 300_000);

  it('should answer a result too large for one response by reference, and binary_session meanwhile', async () => {
    const path = archive(join(dir, 'too-large.asar'), TOO_LARGE);
    const outcome = await inventoryAlongside(path, logOf('inspect_artifact', 'started'));
    expect(outcome.sessionResult.isError).toBeFalsy();
    expect(outcome.heavy.isError).toBe(true);
    const { error } = JSON.parse(outcome.heavy.content[0].text);
    expect(error.code).toBe('resource_constraint');
    expect(error.details.resource).toBe('transport');
    const reference = error.details.reported_limits.evidence_reference;
    expect(reference).toMatchObject({ kind: 'retained-evidence', evidence_id: expect.stringMatching(/^ev_/) });
    expect(outcome.sessionAt).toBeGreaterThanOrEqual(0);
    expect(outcome.heavyAt).toBeGreaterThan(outcome.sessionAt);
    // The retained record is read through a view without repeating the inventory.
    const summary = await call('inspect_analysis_view', { source: reference, view: 'summary' });
    expect(summary.isError).toBeFalsy();
    expect(summary.structuredContent.normalized_result.parent_evidence_id).toBe(reference.evidence_id);
  }, 300_000);
});

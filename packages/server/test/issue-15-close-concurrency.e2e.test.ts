/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// close_binary among 50 concurrent calls on one connection, over the real MCP client and a real stdio
// pipe: every close succeeds (closes are ordered, never cancelled by each other), the short calls
// answer with their own results, and only the call still running after a close's grace period is
// cancelled — with the reason saying the session was closed. The timing comes from events, not from
// how loaded the machine is: the closes queue behind an open that waits for a gate, and the gate is
// removed once every short call has answered, so no short call can still be running when a close's
// grace period ends (a call that is, is cancelled by design).
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { diagnosticOf, valueOf } from './e2eSuite.js';
import { standInEntry } from './httpFixture.js';

type Call = (name: string, args?: Record<string, unknown>, options?: object) => ReturnType<Client['callTool']>;

/** An SDK client of the stand-in server over a stdio pipe, and a call with a long timeout. */
async function connected(): Promise<{ client: Client; call: Call }> {
  const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [standInEntry], stderr: 'ignore' }));
  const call: Call = (name, args = {}, options = {}) =>
    client.callTool({ name, arguments: args }, { timeout: 120_000, ...options });
  return { client, call };
}

/** A call that cannot finish within a close's grace period, once it is running (its first progress). */
async function runningLong(call: Call): Promise<{ done: ReturnType<Call> }> {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const done = call('slow_count', { steps: 10_000, delay_ms: 10 }, { onprogress: () => started() });
  await running;
  return { done };
}

describe('close_binary among concurrent calls (issue 15)', () => {
  it('should give each of 50 concurrent calls its own outcome and let every close_binary succeed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-close-concurrency-'));
    const target = join(dir, 'target.elf');
    writeFileSync(target, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(4096, 7)]));
    const { client, call } = await connected();
    try {
      // One call that cannot finish within a close's grace period, running before the burst starts.
      const long = await runningLong(call);
      // An open that waits for its gate: the closes of the burst queue behind it.
      const gate = `${target}.gate`;
      writeFileSync(gate, '');
      let waiting!: () => void;
      const gated = new Promise<void>((resolve) => (waiting = resolve));
      const opened = call(
        'open_binary',
        { path: target },
        { onprogress: (progress: { message?: string }) => progress.message?.includes('gate') && waiting() },
      );
      await gated;

      const kinds = Array.from({ length: 50 }, (_, i) =>
        i % 5 === 0 ? 'close_binary' : i % 5 === 1 || i % 5 === 3 ? 'binary_session' : 'slow_count',
      );
      const calls = kinds.map((kind) => (kind === 'slow_count' ? call(kind, { steps: 2, delay_ms: 5 }) : call(kind)));
      // Every short call answers while the closes wait; then the open proceeds, and the closes after it.
      await Promise.all(calls.filter((_, i) => kinds[i] !== 'close_binary'));
      unlinkSync(gate);
      valueOf(await opened);
      const results = await Promise.all(calls);
      const failures = results
        .map((result, i) => ({ kind: kinds[i], result }) as { kind: string; result: any })
        .filter(({ result }) => result.isError)
        .map(({ kind, result }) => ({ kind, error: diagnosticOf(result) }));
      expect(failures).toEqual([]);
      const closes = results.filter((_, i) => kinds[i] === 'close_binary').map((r) => valueOf<Record<string, any>>(r));
      expect(closes).toHaveLength(10);
      // The long call was drained by the first close that found it running.
      expect(closes.reduce((sum, close) => sum + (close['drained_calls'] as number), 0)).toBeGreaterThanOrEqual(1);
      expect(closes.filter((close) => close['closed_target'] !== null)).toHaveLength(1);
      const cancelled = diagnosticOf(await long.done);
      expect(cancelled.code).toBe('cancelled');
      expect(cancelled.details['reason']).toBe('session-closed');
      const session = valueOf<Record<string, any>>(await call('binary_session'));
      expect(session['target']).toBeNull();
      expect(session['analysis_run']).toBeNull();
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('should keep the record of a call sent after close_binary, which its answer links to', async () => {
    const { client, call } = await connected();
    try {
      // A call the close drains (it runs past the close's grace period), running before the close.
      const long = await runningLong(call);
      const closing = call('close_binary');
      // Sent after the close: it answers while the close waits for the long call, and links its record.
      const late = (await call('slow_count', { steps: 1, delay_ms: 0 })) as any;
      expect(late.isError).toBeFalsy();
      const link = late.content.find((item: { type: string }) => item.type === 'resource_link');
      expect(link.uri).toBe(`rea://evidence/${late.structuredContent.evidence_id}`);
      const close = valueOf<Record<string, any>>(await closing);
      expect(close['drained_calls']).toBeGreaterThanOrEqual(1);
      expect(close['cleared_records']).toBe(0);
      expect(diagnosticOf(await long.done).details['reason']).toBe('session-closed');
      // The close is over, and the record the late answer linked to is still there.
      const read = await client.readResource({ uri: link.uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text).evidence_id).toBe(
        late.structuredContent.evidence_id,
      );
    } finally {
      await client.close();
    }
  }, 180_000);
});

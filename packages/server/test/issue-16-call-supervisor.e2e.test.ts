/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// Every tool call gets an owned-process supervisor from the host, closed when the call ends: a process
// that ignores SIGTERM and forks a child is gone after success, failure, cancellation and a deadline,
// and binary_session reports its lineage. Driven by the official MCP client over real stdio against
// the built server with a stand-in tools provider (fixtures/callSupervisorProvider.mjs).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { diagnosticOf, processGone, valueOf } from './e2eSuite.js';

const entry = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'callSupervisorServer.mjs');
const TOOL = 'start_stubborn_process';

let client: Client;
let transport: StdioClientTransport;
let dir: string;
let serverPid: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rea-call-supervisor-'));
  transport = new StdioClientTransport({ command: process.execPath, args: [entry], stderr: 'ignore' });
  client = new Client({ name: 'rea-e2e', version: '1.0.0' });
  await client.connect(transport);
  serverPid = transport.pid!;
});

afterAll(async () => {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = (args: Record<string, unknown>, options: Record<string, unknown> = {}) =>
  client.callTool({ name: TOOL, arguments: args }, { timeout: 60_000, ...options });

/** The "<pid> <child pid>" the tool wrote, once it is there. */
async function pidsIn(file: string): Promise<[number, number]> {
  for (let i = 0; i < 400 && !existsSync(file); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  const [pid, child] = readFileSync(file, 'utf8').trim().split(' ').map(Number);
  return [pid!, child!];
}

/** The call snapshots of binary_session's process_lineage. */
async function callSnapshots(): Promise<any[]> {
  const session = valueOf<any>(await client.callTool({ name: 'binary_session', arguments: {} }));
  if (session.process_lineage.status === 'not_observed') return [];
  return session.process_lineage.snapshots.filter((s: any) => s.tool === TOOL);
}

/** Checks the closed call's snapshot: verified before the close with the child, launcher gone after. */
function expectClosedLineage(snapshots: any[], pid: number, child: number): void {
  const snapshot = snapshots.find((s) => s.observations.some((o: any) => o.launcher.pid === pid));
  expect(snapshot).toMatchObject({
    provider: { id: 'stubborn', name: 'Stubborn process stand-in (test only)', version: '1.0.0' },
    tool: TOOL,
    run_id: null,
  });
  const [before, after] = snapshot.observations;
  expect(before).toMatchObject({
    status: 'verified',
    launcher: { pid, ppid: serverPid, pgid: pid },
    launcher_alive: true,
  });
  expect(before.descendants.map((d: any) => d.pid)).toContain(child);
  expect(after).toMatchObject({ status: 'verified', launcher: { pid }, launcher_alive: false, descendants: [] });
  for (const observation of snapshot.observations)
    expect(Number.isNaN(Date.parse(observation.observed_at))).toBe(false);
}

describe('issue 16: a supervisor for every tool call', () => {
  it('should report no lineage before any call starts a process', async () => {
    const session = valueOf<any>(await client.callTool({ name: 'binary_session', arguments: {} }));
    expect(session.process_lineage).toEqual({ status: 'not_observed' });
  });

  it('should leave nothing running after a call that succeeds, and report its lineage', async () => {
    const file = join(dir, 'succeed');
    const value = valueOf<{ pid: number; child_pid: number }>(await call({ mode: 'succeed', pid_file: file }));
    const [pid, child] = await pidsIn(file);
    expect(value).toEqual({ pid, child_pid: child });
    expect(await processGone(pid)).toBe(true);
    expect(await processGone(child)).toBe(true);
    expectClosedLineage(await callSnapshots(), pid, child);
  });

  it('should leave nothing running after a call that fails, and keep the failure', async () => {
    const file = join(dir, 'fail');
    const error = diagnosticOf(await call({ mode: 'fail', pid_file: file }));
    expect(error).toMatchObject({ code: 'execution_failure', details: { reason: 'scripted' } });
    expect(error.details).not.toHaveProperty('cleanup');
    const [pid, child] = await pidsIn(file);
    expect(await processGone(pid)).toBe(true);
    expect(await processGone(child)).toBe(true);
    expectClosedLineage(await callSnapshots(), pid, child);
  });

  it('should leave nothing running after a call that runs into its deadline', async () => {
    const file = join(dir, 'deadline');
    const error = diagnosticOf(await call({ mode: 'deadline', pid_file: file }));
    expect(error).toMatchObject({ code: 'provider_timeout', details: { provider_id: 'stubborn', phase: 'waiting' } });
    const [pid, child] = await pidsIn(file);
    expect(await processGone(pid)).toBe(true);
    expect(await processGone(child)).toBe(true);
    expectClosedLineage(await callSnapshots(), pid, child);
  });

  it('should show a running call live, and leave nothing running once the client cancels it', async () => {
    const file = join(dir, 'wait');
    const controller = new AbortController();
    const pending = call({ mode: 'wait', pid_file: file }, { signal: controller.signal });
    const [pid, child] = await pidsIn(file);
    const live = (await callSnapshots()).find((s) => s.observations[0].launcher.pid === pid);
    expect(live.observations).toHaveLength(1);
    expect(live.observations[0]).toMatchObject({ status: 'verified', launcher_alive: true, launcher: { pid } });
    expect(live.observations[0].descendants.map((d: any) => d.pid)).toContain(child);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(await processGone(pid)).toBe(true);
    expect(await processGone(child)).toBe(true);
    // The snapshot is kept once the close has finished.
    let snapshots: any[] = [];
    for (let i = 0; i < 100; i += 1) {
      snapshots = await callSnapshots();
      if (snapshots.some((s) => s.observations.length === 2 && s.observations[0].launcher.pid === pid)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expectClosedLineage(snapshots, pid, child);
  });
});

// capture_process_scenario through the built `rea`: over MCP on a real stdio pipe (progress, cancellation
// while waiting for output and during the cleanup grace period, the lineage binary_session reports) and
// as a CLI command interrupted with SIGINT; observe_native_calls (progress, event times) and
// compare_process_captures of retained captures over the same MCP connection.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { processAlive } from '@rea/test-helpers';
import { start } from '../../../cli/test/run.js';
import { fixture } from './support.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'rea', 'dist', 'bin.cjs');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hasStack = (text: string) => /\n\s+at .+:\d+:\d+\)?/u.test(text);

interface Observation {
  status: string;
  observed_at?: string;
  launcher: { pid: number };
  launcher_alive?: boolean;
}
interface Snapshot {
  tool?: string;
  observations: Observation[];
}

/** Polls `check` every 50 ms, at most `tries` times; resolves whether it became true. */
async function eventually(check: () => boolean | Promise<boolean>, tries = 1200): Promise<boolean> {
  for (let i = 0; i < tries; i += 1) {
    if (await check()) return true;
    await sleep(50);
  }
  return false;
}

let program = '';
let tmp = '';
let client: Client;

beforeAll(async () => {
  program = fixture('ignores_term');
  tmp = mkdtempSync(join(tmpdir(), 'rea-lldb-e2e-'));
  client = new Client({ name: 'rea-lldb-e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp'],
      env: { ...process.env, TMPDIR: tmp } as Record<string, string>,
      stderr: 'ignore',
    }),
  );
}, 120_000);

afterAll(async () => {
  await client?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The launcher pids of every capture_process_scenario call binary_session has observed so far. */
async function capturedLaunchers(): Promise<Observation[]> {
  const session = await client.callTool({ name: 'binary_session', arguments: {} }, { timeout: 120_000 });
  expect(session.isError).toBeFalsy();
  const lineage = (session.structuredContent as { process_lineage: { status: string; snapshots?: Snapshot[] } })
    .process_lineage;
  if (lineage.status === 'not_observed') return [];
  expect(lineage.status).toBe('snapshots');
  return lineage
    .snapshots!.filter((snapshot) => snapshot.tool === 'capture_process_scenario')
    .flatMap((snapshot) => snapshot.observations);
}

/**
 * The observations of launchers that were not among `earlier` (launcher pids seen before a call): the
 * call's own. A call still closing when `earlier` was read is listed live at the end, then recorded
 * with its closing observations among the earlier calls: counted by position, its late observations
 * would be taken for the next call's.
 */
async function launchersSince(earlier: ReadonlySet<number>): Promise<Observation[]> {
  return (await capturedLaunchers()).filter((o) => !earlier.has(o.launcher.pid));
}

/** The launcher pids of the capture_process_scenario calls binary_session has observed so far. */
async function launcherPids(): Promise<Set<number>> {
  return new Set((await capturedLaunchers()).map((o) => o.launcher.pid));
}

/** Starts a capture that is cancelled through the SDK's AbortSignal at the first progress message matching `when`. */
async function cancelAt(when: RegExp, input: Record<string, unknown>): Promise<string> {
  const controller = new AbortController();
  const messages: string[] = [];
  const outcome = await client
    .callTool(
      { name: 'capture_process_scenario', arguments: { executable: program, ...input } },
      {
        timeout: 120_000,
        signal: controller.signal,
        onprogress: ({ message }) => {
          messages.push(message ?? '');
          if (when.test(message ?? '')) controller.abort(new Error('stop'));
        },
      },
    )
    .then(
      () => 'completed',
      () => 'rejected',
    );
  expect(messages.some((message) => when.test(message))).toBe(true);
  return outcome;
}

describe('capture_process_scenario over MCP (built rea, stdio)', () => {
  it('should report increasing progress with phase, elapsed time and the final cleanup status', async () => {
    const updates: Array<{ progress: number; message: string }> = [];
    const result = await client.callTool(
      {
        name: 'capture_process_scenario',
        arguments: {
          executable: program,
          actions: [{ type: 'wait_for_output', pattern: 'ignoring', stream: 'stdout', timeout_ms: 60_000 }],
          then: 'cleanup',
          cleanup: { signal: 'SIGTERM', grace_ms: 300 },
          deadline_ms: 120_000,
        },
      },
      {
        timeout: 120_000,
        onprogress: ({ progress, message }) => updates.push({ progress, message: message ?? '' }),
      },
    );
    expect(result.isError).toBeFalsy();
    const capture = (result.structuredContent as { normalized_result: { signal: string; cleanup: { status: string } } })
      .normalized_result;
    expect([capture.signal, capture.cleanup.status]).toEqual(['SIGKILL', 'complete']);
    const values = updates.map((update) => update.progress);
    expect(values.length).toBeGreaterThan(1);
    values.slice(1).forEach((value, i) => expect(value).toBeGreaterThan(values[i]!));
    // Intermediate updates are coalesced (one per 100 ms), so not every phase is seen; the scenario's last
    // one comes more than a grace period after the cleanup one, so it always is.
    const phases = updates.filter((u) => u.message.includes(': phase '));
    expect(phases.length).toBeGreaterThan(0);
    for (const u of phases) expect(u.message).toMatch(/: phase [a-z][^;]*; elapsed \d+ ms/u);
    expect(phases.at(-1)!.message).toMatch(/: phase finished; elapsed \d+ ms; cleanup complete \(/u);
  }, 180_000);

  it('should stop a scenario cancelled while waiting for output, answer on, and leave nothing', async () => {
    const earlier = await launcherPids();
    const outcome = await cancelAt(/wait_for_output/u, {
      actions: [{ type: 'wait_for_output', pattern: 'never printed', timeout_ms: 600_000 }],
      deadline_ms: 600_000,
    });
    expect(outcome).toBe('rejected');
    expect(await eventually(async () => (await launchersSince(earlier)).length > 0)).toBe(true);
    const launchers = await launchersSince(earlier);
    expect(launchers.every((o) => o.status === 'verified' && typeof o.observed_at === 'string')).toBe(true);
    const pids = new Set(launchers.map((o) => o.launcher.pid));
    expect(pids.size).toBe(1);
    expect(await eventually(() => [...pids].every((pid) => !processAlive(pid)))).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  }, 180_000);

  it('should cut the grace period short when cancelled during cleanup of a program ignoring SIGTERM', async () => {
    const earlier = await launcherPids();
    // The grace period is the longest allowed: only the cancellation can end it before the test times out.
    const outcome = await cancelAt(/: phase cleanup;/u, {
      actions: [{ type: 'wait_for_output', pattern: 'ignoring', timeout_ms: 60_000 }],
      then: 'cleanup',
      cleanup: { signal: 'SIGTERM', grace_ms: 60_000 },
      deadline_ms: 600_000,
    });
    expect(outcome).toBe('rejected');
    // Gone well within the 60 s grace period: polled for at most about 30 s.
    const gone = async () => {
      const seen = await launchersSince(earlier);
      return seen.length > 0 && seen.at(-1)!.launcher_alive === false && !processAlive(seen[0]!.launcher.pid);
    };
    expect(await eventually(gone, 600)).toBe(true);
    const launchers = await launchersSince(earlier);
    expect(new Set(launchers.map((o) => o.launcher.pid)).size).toBe(1);
    for (const observation of launchers) {
      expect(observation.status).toBe('verified');
      expect(Number.isNaN(Date.parse(observation.observed_at!))).toBe(false);
    }
    expect(readdirSync(tmp)).toEqual([]);
  }, 50_000);
});

describe('observe_native_calls and compare_process_captures over MCP (built rea, stdio)', () => {
  it('should trace with progress (startup, then tracing with the calls counted) and wall-clock event times', async () => {
    const updates: Array<{ progress: number; message: string }> = [];
    const result = await client.callTool(
      {
        name: 'observe_native_calls',
        arguments: {
          executable: fixture('calls'),
          args: ['300'],
          targets: [
            { kind: 'function', name: 'traced', arguments: 2, string_arguments: [1] },
            { kind: 'import', name: 'puts', arguments: 1, string_arguments: [0] },
          ],
          max_events: 2,
        },
      },
      {
        timeout: 300_000,
        onprogress: ({ progress, message }) => updates.push({ progress, message: message ?? '' }),
      },
    );
    expect(result.isError).toBeFalsy();
    const trace = (
      result.structuredContent as {
        normalized_result: {
          targets: Array<{ calls: number }>;
          events: Array<{ strings: Record<string, string>; at: string }>;
          started_at: string;
          stdout: { text: string };
        };
      }
    ).normalized_result;
    expect(trace.targets.map((t) => t.calls)).toEqual([300, 1]);
    expect(trace.events.map((e) => e.strings['1'])).toEqual(['name', 'name']);
    for (const event of trace.events) expect(Date.parse(event.at)).toBeGreaterThanOrEqual(Date.parse(trace.started_at));
    expect(trace.stdout.text).toBe(`done\n${(299 * 300) / 2 + 300}\n`);
    const values = updates.map((update) => update.progress);
    values.slice(1).forEach((value, i) => expect(value).toBeGreaterThan(values[i]!));
    const phases = updates.filter((u) => u.message.includes(': phase '));
    for (const u of phases) expect(u.message).toMatch(/: phase (startup|tracing); elapsed \d+ ms/u);
    // Tracing begins once LLDB has loaded, seconds after the last report: its first report is never held.
    expect(phases.some((u) => /: phase tracing; elapsed \d+ ms; \d+ calls/u.test(u.message))).toBe(true);
  }, 300_000);

  it('should compare two retained captures, equal once PIDs and temp paths are normalized', async () => {
    const ids: string[] = [];
    for (const line of ['started as pid 111 in /tmp/rea-a', 'started as pid 222 in /tmp/rea-b']) {
      const captured = await client.callTool(
        {
          name: 'capture_process_scenario',
          arguments: {
            executable: fixture('echo'),
            actions: [{ type: 'write_stdin', data: `${line}\n` }, { type: 'close_stdin' }],
            deadline_ms: 60_000,
          },
        },
        { timeout: 120_000 },
      );
      expect(captured.isError).toBeFalsy();
      ids.push((captured.structuredContent as { evidence_id: string }).evidence_id);
    }
    const [left, right] = ids.map((evidence_id) => ({ kind: 'retained-evidence', evidence_id }));
    const compare = async (normalize?: string[]) => {
      const outcome = await client.callTool(
        { name: 'compare_process_captures', arguments: { left, right, ...(normalize ? { normalize } : {}) } },
        { timeout: 120_000 },
      );
      expect(outcome.isError).toBeFalsy();
      return (
        outcome.structuredContent as {
          normalized_result: { equal: boolean; differences: Array<{ field: string; left: string; right: string }> };
        }
      ).normalized_result;
    };
    expect(await compare()).toMatchObject({ equal: true, differences: [] });
    const raw = await compare([]);
    expect(raw.equal).toBe(false);
    expect(raw.differences).toEqual([
      {
        field: 'stdout',
        left: 'ready\necho: started as pid 111 in /tmp/rea-a\n',
        right: 'ready\necho: started as pid 222 in /tmp/rea-b\n',
      },
    ]);
  }, 300_000);
});

describe('rea capture-process-scenario on the command line', () => {
  it('should cancel on SIGINT with status 130, a typed message, no stack trace and no child left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-lldb-cli-'));
    try {
      const { child, done } = start(
        bin,
        [
          'capture-process-scenario',
          '--input',
          JSON.stringify({ executable: program, deadline_ms: 600_000, cleanup: { signal: 'SIGTERM', grace_ms: 100 } }),
        ],
        { env: { TMPDIR: dir } },
      );
      // The fixture is the child of the CLI that runs the compiled program.
      const childPids = () =>
        readdirSync('/proc')
          .filter((name) => /^\d+$/u.test(name))
          .map(Number)
          .filter((pid) => {
            try {
              const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
              const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
              return argv0 === program && stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === String(child.pid);
            } catch {
              return false;
            }
          });
      expect(await eventually(() => childPids().length === 1)).toBe(true);
      const [pid] = childPids();
      child.kill('SIGINT');
      const result = await done;
      expect(result.code).toBe(130);
      expect(result.stderr).toContain('error [cancelled]');
      expect(hasStack(result.stdout + result.stderr)).toBe(false);
      expect(processAlive(pid!)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

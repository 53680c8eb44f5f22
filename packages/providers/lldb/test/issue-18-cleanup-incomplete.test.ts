// A process that cannot be killed: the program is frozen through the cgroup v1 freezer, where a pending
// SIGKILL takes effect only once the group is thawed. Cleanup must then fail with cleanup_incomplete
// naming only the processes, keep every signal attempt in details.partial_observation, and the process
// must go once it is thawed.
import { afterAll, expect, it, jest } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import type { ReaError } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import { processAlive, quietToolContext, skipUnless } from '@rea/test-helpers';
import type { CaptureResult } from '../src/capture/schema.js';
import { capture, fixture } from './support.js';

jest.setTimeout(180_000);

const FREEZER = '/sys/fs/cgroup/freezer';
const group = join(FREEZER, `rea-test-${process.pid}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why the freezer cannot be used here, or null when a group can be made in it. */
function freezerUnavailable(): string | null {
  if (!existsSync(join(FREEZER, 'cgroup.procs'))) return `no cgroup v1 freezer at ${FREEZER}`;
  try {
    mkdirSync(group);
    return null;
  } catch (error) {
    return `cannot create a freezer cgroup (${(error as Error).message})`;
  }
}

/** The pids whose argv is exactly `argv`. */
function pidsOf(argv: string[]): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/u.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `${argv.join('\0')}\0`;
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function eventually(check: () => boolean, tries = 1200): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (check()) return true;
    await sleep(50);
  }
  return false;
}

afterAll(() => {
  if (!existsSync(group)) return;
  writeFileSync(join(group, 'freezer.state'), 'THAWED');
  for (const pid of readFileSync(join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
    writeFileSync(join(FREEZER, 'cgroup.procs'), pid);
  }
  rmdirSync(group);
});

skipUnless(freezerUnavailable())('capture_process_scenario with a process that cannot be killed', () => {
  it('should fail with cleanup_incomplete listing only the processes, keep the signal attempts, and the process goes once thawed', async () => {
    const program = fixture('ignores_term');
    const argv = [program, `rea-frozen-${process.pid}`];
    const controller = new AbortController();
    const call = executeTool(
      capture,
      {
        executable: program,
        args: argv.slice(1),
        actions: [{ type: 'wait_for_output', pattern: 'never printed', timeout_ms: 600_000 }],
        cleanup: { signal: 'SIGTERM', grace_ms: 100 },
        deadline_ms: 600_000,
      },
      quietToolContext({ signal: controller.signal }),
    ).then(
      () => null,
      (error: unknown) => error,
    );
    expect(await eventually(() => pidsOf(argv).length === 1)).toBe(true);
    const [pid] = pidsOf(argv);
    writeFileSync(join(group, 'cgroup.procs'), String(pid));
    writeFileSync(join(group, 'freezer.state'), 'FROZEN');
    expect(await eventually(() => readFileSync(join(group, 'freezer.state'), 'utf8').trim() === 'FROZEN')).toBe(true);
    // Cancelling starts the cleanup: SIGTERM, the grace period, SIGKILL, which the frozen process cannot act on.
    controller.abort();
    const error = await call;
    expect(isReaError(error)).toBe(true);
    const failure = error as ReaError;
    expect(failure.code).toBe('cleanup_incomplete');
    expect(failure.details['remaining']).toEqual([{ kind: 'processes', identifiers: [`pid:${pid}`] }]);
    // The call's supervisor tried again as the call closed, through its own path, and says the same.
    expect(failure.details['cleanup']).toEqual({
      status: 'incomplete',
      remaining: [{ kind: 'processes', identifiers: [`pid:${pid}`] }],
    });
    const partial = failure.details['partial_observation'] as unknown as CaptureResult;
    expect([partial.exit_code, partial.elapsed_ms, partial.signal]).toEqual([null, null, null]);
    expect(partial.signals.map((s) => [s.signal, s.target, s.pid, s.result])).toEqual([
      ['SIGTERM', 'group', pid, 'delivered'],
      ['SIGKILL', 'group', pid, 'delivered'],
    ]);
    expect(processAlive(pid!)).toBe(true);
    writeFileSync(join(group, 'freezer.state'), 'THAWED');
    expect(await eventually(() => !processAlive(pid!))).toBe(true);
  });
});

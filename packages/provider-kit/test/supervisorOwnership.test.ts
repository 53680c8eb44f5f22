import { afterEach, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { skipUnless } from '@rea/test-helpers';
import { createProcessSupervisor, mountsUnderByDevice } from '@rea/provider-kit';
import type { ProcessSupervisor } from '@rea/provider-kit';

// These tests need host privileges: steering pid allocation (to reuse a pid for real) and mounting.
const NS_LAST_PID = '/proc/sys/kernel/ns_last_pid';

function pidSteeringUnavailable(): string | null {
  try {
    accessSync(NS_LAST_PID, constants.W_OK);
    return null;
  } catch {
    return `${NS_LAST_PID} is not writable (needs CAP_SYS_ADMIN): cannot reproduce pid reuse`;
  }
}

function mountUnavailable(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'rea-mount-check-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', 'rea-check', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return null;
  } catch {
    return 'cannot mount tmpfs on this host: mount cleanup is not exercised';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const supervisors: ProcessSupervisor[] = [];
const outsiders: ChildProcess[] = [];

afterEach(async () => {
  for (const s of supervisors.splice(0)) await s.closeAll({ graceMs: 200 }).catch(() => undefined);
  for (const child of outsiders.splice(0)) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

skipUnless(pidSteeringUnavailable())('process ownership after pid reuse', () => {
  it('should report lineage unavailable and never signal the process that reused the launcher pid', async () => {
    let found: { s: ProcessSupervisor; pid: number; outsider: ChildProcess } | null = null;
    for (let attempt = 0; attempt < 10 && !found; attempt += 1) {
      const s = createProcessSupervisor();
      supervisors.push(s);
      const owned = await s.start('sh', ['-c', 'exit 0']);
      await owned.exited;
      const pid = owned.identity.pid;
      while (existsSync(`/proc/${pid}`)) await pause(10);
      await pause(30); // a later clock tick, so the start times differ
      writeFileSync(NS_LAST_PID, String(pid - 1));
      // A detached process outside the supervisor: it gets the same pid and so leads a group with our old pgid.
      const outsider = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
      outsiders.push(outsider);
      if (outsider.pid === pid) found = { s, pid, outsider };
    }
    if (!found) throw new Error('could not reproduce pid reuse in 10 attempts');
    const { s, pid, outsider } = found;
    const group = execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    expect(group).toBe(String(pid));
    const [snapshot] = s.lineage();
    expect(snapshot).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/^pid-reused/) });
    expect(s.owned()).toEqual([]);
    await s.closeAll({ graceMs: 100 });
    await pause(100);
    expect(outsider.exitCode).toBeNull();
    expect(outsider.signalCode).toBeNull();
  });
});

skipUnless(mountUnavailable())('owned mounts', () => {
  it('should unmount an owned mount and remove its directory', async () => {
    const s = createProcessSupervisor();
    supervisors.push(s);
    const dir = await s.createTempDir('mount');
    const point = join(dir, 'image');
    mkdirSync(point);
    execFileSync('mount', ['-t', 'tmpfs', 'rea-test', point]);
    s.registerMount(point, async () => {
      execFileSync('umount', [point]);
    });
    expect(s.owned()).toEqual([
      { kind: 'temp-directories', id: dir },
      { kind: 'mounts', id: point },
    ]);
    await s.closeAll();
    expect(existsSync(dir)).toBe(false);
  });

  it('should report cleanup_incomplete with the mount and directory that remain, then finish on retry', async () => {
    const s = createProcessSupervisor();
    supervisors.push(s);
    const dir = await s.createTempDir('mount');
    const point = join(dir, 'image');
    mkdirSync(point);
    execFileSync('mount', ['-t', 'tmpfs', 'rea-test', point]);
    writeFileSync(join(point, 'keep.txt'), 'mounted data');
    let attempts = 0;
    s.registerMount(point, async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('device busy');
      execFileSync('umount', [point]);
    });
    let error: unknown;
    try {
      await s.closeAll();
    } catch (caught) {
      error = caught;
    }
    expect(isReaError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'cleanup_incomplete',
      details: {
        remaining: [
          { kind: 'mounts', identifiers: [point] },
          { kind: 'temp-directories', identifiers: [dir] },
        ],
      },
    });
    // The directory was not deleted recursively through the mount that remained.
    expect(readFileSync(join(point, 'keep.txt'), 'utf8')).toBe('mounted data');
    await s.closeAll();
    expect(existsSync(dir)).toBe(false);
    expect(s.owned()).toEqual([]);
  });

  it('should find mount points by device id where the host lists no mounts, without descending into them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-devices-'));
    const point = join(dir, 'a', 'image');
    mkdirSync(join(point), { recursive: true });
    mkdirSync(join(dir, 'b', 'c'), { recursive: true });
    try {
      expect(mountsUnderByDevice(dir)).toEqual([]);
      execFileSync('mount', ['-t', 'tmpfs', 'rea-test', point]);
      mkdirSync(join(point, 'inside'));
      // Agrees with the host's own listing (/proc/self/mountinfo) of what is mounted below dir.
      const listed = readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .map((line) => line.split(' ')[4])
        .filter((field): field is string => field !== undefined && field.startsWith(`${dir}/`));
      expect(mountsUnderByDevice(dir)).toEqual(listed);
      expect(listed).toEqual([point]);
    } finally {
      execFileSync('umount', [point], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    }
    expect(mountsUnderByDevice(dir)).toEqual([]);
  });
});

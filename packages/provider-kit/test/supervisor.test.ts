import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { createProcessSupervisor } from '@rea/provider-kit';
import type { OwnedProcess, ProcessSupervisor } from '@rea/provider-kit';

const supervisors: ProcessSupervisor[] = [];
const outsiders: ChildProcess[] = [];

function supervisor(options: Parameters<typeof createProcessSupervisor>[0] = {}): ProcessSupervisor {
  const created = createProcessSupervisor(options);
  supervisors.push(created);
  return created;
}

afterEach(async () => {
  for (const s of supervisors.splice(0)) await s.closeAll({ graceMs: 200 }).catch(() => undefined);
  for (const child of outsiders.splice(0)) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
});

/** The pid's process group and parent according to ps(1), an observer independent of the supervisor. */
function psView(pid: number): { ppid: number; pgid: number } | null {
  try {
    const [ppid, pgid] = execFileSync('ps', ['-o', 'ppid=,pgid=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    return { ppid: ppid!, pgid: pgid! };
  } catch {
    return null;
  }
}

/** True while `pid` exists and is not a zombie, according to ps(1). */
function alive(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .startsWith('Z');
  } catch {
    return false;
  }
}

async function firstLine(owned: OwnedProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    owned.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    owned.stdout!.once('end', () => reject(new Error(`stdout ended before a line: ${text}`)));
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected a failure');
}

// Three sleepers: two in the launcher's group, one that escapes into its own session (setsid).
const FAMILY = 'sleep 300 & sh -c "sleep 300 & wait" & setsid sleep 300 & echo ready; wait';

describe('createProcessSupervisor', () => {
  it('should start a process in its own group and record its identity', async () => {
    const s = supervisor();
    const owned = await s.start('sleep', ['300']);
    const seen = psView(owned.identity.pid);
    expect(seen).toEqual({ ppid: process.pid, pgid: owned.identity.pid });
    expect(owned.identity).toMatchObject({ ppid: process.pid, pgid: owned.identity.pid, command: 'sleep' });
    expect(owned.identity.start_ticks).toEqual(expect.any(Number));
    expect(s.owned()).toEqual([{ kind: 'processes', id: String(owned.identity.pid) }]);
    await s.closeAll({ graceMs: 1000 });
    expect(alive(owned.identity.pid)).toBe(false);
    expect(await owned.exited).toEqual({ exitCode: null, signal: 'SIGTERM' });
  });

  it('should settle exited when the launcher exits, while a background child still holds its stdout', async () => {
    const s = supervisor();
    // The launcher leaves a child behind that inherited stdout, and exits 3 at once.
    const owned = await s.start('sh', ['-c', 'sleep 300 & echo ready; exit 3'], { stdout: 'pipe' });
    expect(await firstLine(owned)).toBe('ready');
    let ended = false;
    owned.stdout!.once('end', () => (ended = true));
    const exit = await Promise.race([
      owned.exited,
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5000).unref()),
    ]);
    expect(exit).toEqual({ exitCode: 3, signal: null });
    expect(owned.exit()).toEqual({ exitCode: 3, signal: null });
    // The child still holds the stream open: only the supervisor's cleanup ends it.
    expect(ended).toBe(false);
    await s.closeAll({ graceMs: 500 });
  });

  it('should send SIGTERM first and SIGKILL after the grace period to a process that ignores SIGTERM', async () => {
    await withTempDir(async (dir) => {
      const marker = join(dir, 'term');
      const s = supervisor();
      const script = `process.on('SIGTERM', () => require('fs').writeFileSync(${JSON.stringify(marker)}, 'got'));
        console.log('ready'); setInterval(() => {}, 1000);`;
      const owned = await s.start(process.execPath, ['-e', script], { stdout: 'pipe' });
      expect(await firstLine(owned)).toBe('ready');
      await s.closeAll({ graceMs: 300 });
      expect(readFileSync(marker, 'utf8')).toBe('got');
      expect(await owned.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
      expect(alive(owned.identity.pid)).toBe(false);
    });
  });

  it('should observe and clean every descendant, including one that left the process group', async () => {
    const s = supervisor();
    const owned = await s.start('sh', ['-c', FAMILY], { stdout: 'pipe' });
    expect(await firstLine(owned)).toBe('ready');
    const pid = owned.identity.pid;
    await until(() => {
      const snapshot = owned.lineage();
      if (snapshot.status !== 'verified') return false;
      const sleepers = snapshot.descendants.filter((d) => d.comm === 'sleep');
      return sleepers.length === 3 && sleepers.some((d) => d.pgid !== pid);
    }, 'three sleepers, one escaped');
    const snapshot = owned.lineage();
    if (snapshot.status !== 'verified') throw new Error('expected a verified snapshot');
    expect(snapshot.launcher_alive).toBe(true);
    expect(Date.parse(snapshot.observed_at)).not.toBeNaN();
    const sleepers = snapshot.descendants.filter((d) => d.comm === 'sleep');
    expect(sleepers).toHaveLength(3);
    // Cross-check every descendant's parent and group with ps(1).
    for (const d of snapshot.descendants) expect(psView(d.pid)).toEqual({ ppid: d.ppid, pgid: d.pgid });
    const escaped = sleepers.filter((d) => d.pgid !== pid);
    expect(escaped).toHaveLength(1);
    expect(s.lineage()).toHaveLength(1);

    await s.closeAll({ graceMs: 1000 });
    for (const d of snapshot.descendants) expect(alive(d.pid)).toBe(false);
    expect(alive(pid)).toBe(false);
    const after = owned.lineage();
    expect(after).toMatchObject({ status: 'verified', launcher_alive: false, descendants: [] });
    expect(s.owned()).toEqual([]);
  });

  it("should own a daemon that left the group and its parent (double fork and setsid) by its environment's mark", async () => {
    const s = supervisor();
    // The middle process exits at once: the daemon is re-parented away, in a session of its own, before
    // any scan can have seen it as a child. It writes its PID to stdout.
    const owned = await s.start('sh', ['-c', 'sh -c "setsid sh -c \'echo \\$\\$; exec sleep 300\' &"; wait'], {
      stdout: 'pipe',
    });
    const daemon = Number(await firstLine(owned));
    await until(() => psView(daemon)?.ppid !== owned.identity.pid && owned.exit() !== null, 'the launcher to exit');
    const view = psView(daemon)!;
    expect(view.pgid).toBe(daemon);
    expect(view.ppid).not.toBe(owned.identity.pid);
    const snapshot = owned.lineage();
    if (snapshot.status !== 'verified') throw new Error('expected a verified snapshot');
    expect(snapshot.descendants.map((d) => d.pid)).toEqual([daemon]);
    await s.closeAll({ graceMs: 1000 });
    expect(alive(daemon)).toBe(false);
    expect(s.owned()).toEqual([]);
  });

  it('should never signal a process it did not start', async () => {
    const outsider = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    outsiders.push(outsider);
    const s = supervisor();
    const owned = await s.start('sleep', ['300']);
    expect(s.owned().map((r) => r.id)).not.toContain(String(outsider.pid));
    await s.closeAll({ graceMs: 200 });
    expect(alive(owned.identity.pid)).toBe(false);
    expect(alive(outsider.pid!)).toBe(true);
    expect(outsider.exitCode).toBeNull();
    expect(outsider.signalCode).toBeNull();
  });

  it('should fail to start a missing command with execution_failure', async () => {
    const error = await failure(supervisor().start(join(tmpdir(), 'rea-no-such-engine'), []));
    expect(error.code).toBe('execution_failure');
    expect(error.details['reason']).toBe('ENOENT');
  });

  it('should keep the stderr tail of a failing process', async () => {
    const owned = await supervisor().start('sh', ['-c', 'echo engine exploded >&2; exit 3']);
    expect(await owned.exited).toEqual({ exitCode: 3, signal: null });
    expect(owned.stderrTail()).toBe('engine exploded\n');
  });

  it('should terminate the owned processes when its signal aborts, and refuse new starts', async () => {
    const controller = new AbortController();
    const s = supervisor({ signal: controller.signal });
    const owned = await s.start('sh', ['-c', FAMILY], { stdout: 'pipe' });
    expect(await firstLine(owned)).toBe('ready');
    controller.abort();
    await owned.exited;
    await until(() => s.owned().length === 0, 'the owned processes to exit');
    expect(alive(owned.identity.pid)).toBe(false);
    const error = await failure(s.start('sleep', ['1']));
    expect(error.code).toBe('cancelled');
  });

  it('should terminate one process when its own start signal aborts', async () => {
    const controller = new AbortController();
    const s = supervisor();
    const owned = await s.start('sleep', ['300'], { signal: controller.signal });
    const other = await s.start('sleep', ['300']);
    controller.abort();
    expect(await owned.exited).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(alive(other.identity.pid)).toBe(true);
  });
});

describe('owned resources', () => {
  it('should create mode-0700 temp directories and remove them on close', async () => {
    const s = supervisor();
    const dir = await s.createTempDir('work');
    expect(dir.startsWith(join(tmpdir(), 'rea-work-'))).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    writeFileSync(join(dir, 'project.db'), 'x');
    expect(s.owned()).toEqual([{ kind: 'temp-directories', id: dir }]);
    await s.closeAll();
    expect(existsSync(dir)).toBe(false);
    expect(s.owned()).toEqual([]);
    expect((await failure(s.createTempDir('again'))).code).toBe('invalid_request');
  });

  it('should refuse a temp directory prefix that is not a short word', async () => {
    const error = await failure(supervisor().createTempDir('../escape'));
    expect(error.code).toBe('invalid_request');
  });

  it('should close and unlink an owned socket', async () => {
    const { createServer } = await import('node:net');
    const s = supervisor();
    const path = await s.createSocketPath('bridge.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    s.registerSocket(path, () => new Promise<void>((resolve) => server.close(() => resolve())));
    expect(statSync(path).isSocket()).toBe(true);
    expect(s.owned().map((r) => r.kind)).toEqual(['temp-directories', 'sockets']);
    await s.closeAll();
    expect(server.listening).toBe(false);
    expect(existsSync(path)).toBe(false);
  });
});

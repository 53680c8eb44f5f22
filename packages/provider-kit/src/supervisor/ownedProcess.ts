import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { ReaError } from '@rea/evidence';
import { descendantsOf, environHolds, procAvailable, readProc, readProcTable } from './procfs.js';
import type { ProcEntry } from './procfs.js';
import { guardGroup, releaseGroup } from './watchdog.js';

/** What the supervisor recorded about a process it started. */
export interface ProcessIdentity {
  pid: number;
  /** The parent at start: this host process. */
  ppid: number;
  /** The process group: the launcher leads its own group, so this equals `pid`. */
  pgid: number;
  /** Start time in clock ticks since boot (Linux); null where the host has no process table. */
  start_ticks: number | null;
  /** Wall-clock start, ISO 8601. */
  started_at: string;
  /** The command that was started (not its arguments, which may name local paths). */
  command: string;
}

/** One process seen during an ownership check. */
export interface ObservedProcess {
  pid: number;
  ppid: number;
  pgid: number;
  start_ticks: number;
  comm: string;
}

/**
 * One ownership observation of a started process: `verified` with the launcher and the descendants
 * seen at that bounded check, or `unavailable` with the reason ownership could not be revalidated. A
 * historical snapshot, not a live inventory: short-lived descendants between checks are not claimed absent.
 */
export type LineageObservation =
  | {
      status: 'verified';
      observed_at: string;
      launcher: ProcessIdentity;
      launcher_alive: boolean;
      descendants: ObservedProcess[];
    }
  | { status: 'unavailable'; observed_at: string; launcher: ProcessIdentity; reason: string };

/** How a started process ended. */
export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
}

/** Options for {@link ProcessSupervisor.start}. */
export interface StartOptions {
  cwd?: string;
  /** Variables added to (or, with `extendEnv: false`, replacing) this process's environment. */
  env?: Readonly<Record<string, string>>;
  extendEnv?: boolean;
  /** Default "ignore". A piped stdout must be read, or the engine blocks once the pipe is full. */
  stdin?: 'pipe' | 'ignore';
  /** Default "ignore". */
  stdout?: 'pipe' | 'ignore';
  /** Default "pipe": always drained, its last 4 KiB kept for {@link OwnedProcess.stderrTail}. */
  stderr?: 'pipe' | 'ignore';
  /** Aborting terminates this process's group (graceful signal, bounded wait, then kill). */
  signal?: AbortSignal;
}

/** A process started by the supervisor, in its own process group. */
export interface OwnedProcess {
  readonly identity: ProcessIdentity;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** Settles when the launcher exits, even while a child of its keeps its streams open; never rejects. */
  readonly exited: Promise<ProcessExit>;
  /** The launcher's exit, or null while it runs. */
  exit(): ProcessExit | null;
  /** The last 4 KiB of stderr (when piped), for `execution_failure` details. */
  stderrTail(): string;
  /** An ownership observation taken now. */
  lineage(): LineageObservation;
  /**
   * Terminates every process this one can be proven to own (its group and its descendants): SIGTERM,
   * up to `graceMs` (default 5000) for them to exit, then SIGKILL. Throws `cleanup_incomplete` when
   * owned processes remain.
   */
  terminate(options?: { graceMs?: number }): Promise<void>;
}

/** Owned processes that are still present after termination (internal signal to the handle). */
class RemainingProcesses {
  constructor(readonly processes: ObservedProcess[]) {}
}

const TAIL = 4096;
const POLL_MS = 25;
const KILL_WAIT_MS = 3000;
/** How long after the launcher's exit its streams may take to close before it counts as exited. */
const STREAMS_AFTER_EXIT_MS = 200;
/** The variable that marks the environment of an owned process and of the descendants that keep it. */
export const OWNER_VARIABLE = 'REA_OWNER';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());
/**
 * A wait that keeps the event loop alive: polling for owned processes to go must not end with the
 * loop emptying (once Node has reaped the launcher nothing else may hold it, and a host awaiting the
 * close at top level would then exit with the close unfinished).
 */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function observed(entry: ProcEntry): ObservedProcess {
  return { pid: entry.pid, ppid: entry.ppid, pgid: entry.pgid, start_ticks: entry.startTicks, comm: entry.comm };
}

/** Starts `command` detached (own process group) and resolves once it has spawned. */
export async function startOwnedProcess(
  command: string,
  args: readonly string[],
  options: StartOptions,
): Promise<OwnedProcess> {
  // Loaded on first start: execa is a sizeable import that nothing needs until a process starts.
  const { execa } = await import('execa');
  // Inherited by every descendant that keeps its environment: one that left both the process group and
  // the parent chain (a daemon's double fork with setsid) is still found by it.
  const mark = `${OWNER_VARIABLE}=${randomBytes(12).toString('hex')}`;
  const subprocess = execa(command, args, {
    detached: true,
    cleanup: false,
    reject: false,
    buffer: false,
    windowsHide: true,
    stdin: options.stdin ?? 'ignore',
    stdout: options.stdout ?? 'ignore',
    stderr: options.stderr ?? 'pipe',
    extendEnv: options.extendEnv ?? true,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { ...options.env, [OWNER_VARIABLE]: mark.slice(OWNER_VARIABLE.length + 1) },
  });
  // The launcher's exit once its streams have closed, or a moment after it when they stay open: execa's
  // promise settles only once every stream has closed, and a background child that inherited stdout
  // would hold it until killed. The moment lets what the launcher wrote last arrive (its stderr tail).
  const exitEvent = new Promise<ProcessExit>((resolve) => {
    subprocess.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
      const exit = { exitCode: code, signal };
      const late = setTimeout(() => resolve(exit), STREAMS_AFTER_EXIT_MS);
      subprocess.once('close', () => {
        clearTimeout(late);
        resolve(exit);
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    subprocess.once('spawn', () => resolve());
    subprocess.once('error', reject);
  }).catch((error: NodeJS.ErrnoException) => {
    throw new ReaError('execution_failure', `Could not start ${command}: ${error.message}`, {
      remediation: 'Check that the engine is installed and executable, then retry.',
      details: { command, reason: error.code ?? 'spawn-failed' },
    });
  });
  const pid = subprocess.pid!;
  const entry = procAvailable() ? readProc(pid) : null;
  const identity: ProcessIdentity = Object.freeze({
    pid,
    ppid: entry?.ppid ?? process.pid,
    pgid: entry?.pgid ?? pid,
    start_ticks: entry?.startTicks ?? null,
    started_at: new Date().toISOString(),
    command,
  });
  let tail = '';
  subprocess.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-TAIL);
  });
  let exit: ProcessExit | null = null;
  const exited = Promise.race([
    exitEvent,
    // Settles too when no exit event comes (a failure after the spawn): the streams close then.
    (subprocess as unknown as Promise<{ exitCode?: number; signal?: string }>).then(
      (result) => ({ exitCode: result.exitCode ?? null, signal: result.signal ?? null }),
      () => ({ exitCode: null, signal: null }),
    ),
  ]);
  guardGroup(identity);
  void exited.then((value) => {
    exit = value;
    releaseGroup(identity);
  });
  return createHandle(
    identity,
    mark,
    subprocess,
    exited,
    () => exit,
    () => tail,
    options.signal,
  );
}

function createHandle(
  identity: ProcessIdentity,
  mark: string,
  subprocess: { stdin: Writable | null; stdout: Readable | null; stderr: Readable | null },
  exited: Promise<ProcessExit>,
  exit: () => ProcessExit | null,
  tail: () => string,
  signal: AbortSignal | undefined,
): OwnedProcess {
  // Every (pid, start) ever proven ours: descendants that left the group stay ours while they live.
  const known = new Map<number, number>();
  // Every (pid, start) found not to carry the mark: its environment is read once.
  const unmarked = new Map<number, number>();
  const hasProc = identity.start_ticks !== null;

  const reused = (table: ReadonlyMap<number, ProcEntry>): boolean => {
    const entry = table.get(identity.pid);
    return entry !== undefined && entry.startTicks !== identity.start_ticks;
  };

  /** The owned, live processes in `table`. */
  const scan = (table: ReadonlyMap<number, ProcEntry>): ProcEntry[] => {
    const owned = new Map<number, ProcEntry>();
    const start = identity.start_ticks!;
    if (!reused(table)) {
      const launcher = table.get(identity.pid);
      if (launcher) owned.set(launcher.pid, launcher);
      for (const entry of table.values()) {
        // Our group id cannot be reallocated while a member lives, and no member predates the launcher.
        if (entry.pgid === identity.pgid && entry.startTicks >= start) owned.set(entry.pid, entry);
      }
    }
    for (const [pid, ticks] of known) {
      const entry = table.get(pid);
      if (entry && entry.startTicks === ticks) owned.set(pid, entry);
      else known.delete(pid);
    }
    for (const [pid, ticks] of unmarked) if (table.get(pid)?.startTicks !== ticks) unmarked.delete(pid);
    for (const entry of table.values()) {
      if (entry.startTicks < start || owned.has(entry.pid) || unmarked.get(entry.pid) === entry.startTicks) continue;
      if (environHolds(entry.pid, mark)) {
        owned.set(entry.pid, entry);
        known.set(entry.pid, entry.startTicks);
      } else {
        unmarked.set(entry.pid, entry.startTicks);
      }
    }
    for (const root of [...owned.values()]) {
      for (const child of descendantsOf(table, root.pid)) owned.set(child.pid, child);
    }
    const live = [...owned.values()].filter((entry) => entry.state !== 'Z' && entry.state !== 'X');
    for (const entry of live) known.set(entry.pid, entry.startTicks);
    return live.sort((a, b) => a.pid - b.pid);
  };

  const lineage = (): LineageObservation => {
    const observed_at = new Date().toISOString();
    if (!hasProc) {
      return { status: 'unavailable', observed_at, launcher: identity, reason: 'process-table-unavailable' };
    }
    const table = readProcTable();
    if (reused(table)) {
      return {
        status: 'unavailable',
        observed_at,
        launcher: identity,
        reason: `pid-reused: process ${identity.pid} now has a different start time`,
      };
    }
    const live = scan(table);
    const launcherAlive = live.some((entry) => entry.pid === identity.pid);
    return {
      status: 'verified',
      observed_at,
      launcher: identity,
      launcher_alive: launcherAlive,
      descendants: live.filter((entry) => entry.pid !== identity.pid).map(observed),
    };
  };

  /** Signals what a fresh scan proves ours; returns what that scan found. */
  const signalOwned = (name: NodeJS.Signals): ProcEntry[] => {
    const table = readProcTable();
    const live = scan(table);
    const groupMember = live.some((entry) => entry.pgid === identity.pgid);
    if (groupMember) trySignal(-identity.pgid, name);
    for (const entry of live) {
      if (entry.pgid === identity.pgid) continue;
      // Re-read right before signalling: the pid must still carry the start time we proved.
      const now = readProc(entry.pid);
      if (now && now.startTicks === entry.startTicks) trySignal(entry.pid, name);
    }
    return live;
  };

  const waitGone = async (ms: number): Promise<ProcEntry[]> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const live = scan(readProcTable());
      if (live.length === 0 || Date.now() >= deadline) return live;
      await pause(POLL_MS);
    }
  };

  const terminate = async (options: { graceMs?: number } = {}): Promise<void> => {
    const graceMs = options.graceMs ?? 5000;
    if (!hasProc) {
      // Without a process table only the unreaped launcher's group is provably ours.
      if (exit() === null) trySignal(-identity.pgid, 'SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
      if (!done && exit() === null) trySignal(-identity.pgid, 'SIGKILL');
      await Promise.race([exited, sleep(KILL_WAIT_MS)]);
      return;
    }
    if (signalOwned('SIGTERM').length === 0) return;
    let live = await waitGone(graceMs);
    if (live.length > 0) {
      signalOwned('SIGKILL');
      live = await waitGone(KILL_WAIT_MS);
    }
    if (live.length > 0) throw new RemainingProcesses(live.map(observed));
  };

  if (signal) {
    const onAbort = () => void terminate({ graceMs: 1000 }).catch(() => undefined);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void exited.then(() => signal.removeEventListener('abort', onAbort));
  }

  return {
    identity,
    stdin: subprocess.stdin,
    stdout: subprocess.stdout,
    stderr: subprocess.stderr,
    exited,
    exit,
    stderrTail: tail,
    lineage,
    terminate: async (options) => {
      try {
        await terminate(options);
      } catch (error) {
        if (error instanceof RemainingProcesses) throw cleanupIncomplete([processesRemaining(error.processes)]);
        throw error;
      }
    },
  };
}

function trySignal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ESRCH: already gone. EPERM: not ours to signal; the next scan reports it if it was owned.
  }
}

/** The owned resource kinds cleanup can leave behind. */
export type OwnedResourceKind = 'processes' | 'temp-directories' | 'sockets' | 'mounts';

/** One kind of owned resource left after cleanup, with identifiers. */
export interface RemainingResources {
  kind: OwnedResourceKind;
  identifiers: string[];
}

function processesRemaining(processes: ObservedProcess[]): RemainingResources {
  return { kind: 'processes', identifiers: processes.map((p) => `pid:${p.pid}`) };
}

/** Builds `cleanup_incomplete` with `details.remaining` listing the kinds left and their identifiers. */
export function cleanupIncomplete(remaining: RemainingResources[]): ReaError {
  const kinds = remaining.map((r) => r.kind).join(', ');
  return new ReaError('cleanup_incomplete', `Owned resources remain after cleanup: ${kinds}.`, {
    details: { remaining: remaining.map((r) => ({ kind: r.kind, identifiers: r.identifiers })) },
  });
}

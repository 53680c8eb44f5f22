import { join } from 'node:path';
import { ReaError, isReaError, throwIfAborted } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import { cleanupIncomplete, startOwnedProcess } from './ownedProcess.js';
import type {
  LineageObservation,
  OwnedProcess,
  OwnedResourceKind,
  RemainingResources,
  StartOptions,
} from './ownedProcess.js';
import { createOwnedTempDir, ownedMount, ownedSocket } from './resources.js';
import type { ReleasableResource } from './resources.js';
import { forgetOnExit, killOnExit } from './exitHook.js';
import { guardDirectory, releaseDirectory } from './watchdog.js';

/** One owned resource: its kind and its identifier (pid, path, mount point). */
export interface OwnedResource {
  kind: OwnedResourceKind;
  id: string;
}

/** Options for {@link createProcessSupervisor}. */
export interface SupervisorOptions {
  /** Aborting closes the supervisor: every owned process is terminated and every resource released. */
  signal?: AbortSignal;
  /** Default grace period between SIGTERM and SIGKILL, in ms (default 5000). */
  graceMs?: number;
}

/**
 * Owns the processes, temp directories, sockets and mounts of one provider session, and cleans them
 * up. Never signals a process it cannot prove it owns (same pid and start time, or a member of a
 * process group it started while that group lives).
 */
export interface ProcessSupervisor {
  /**
   * Starts `command` in its own process group and records its identity. Resolves once spawned;
   * `execution_failure` (`details.command`, `details.reason`) when it cannot start; `cancelled` when
   * the supervisor's or the start's signal has aborted; `invalid_request` after `closeAll`.
   */
  start(command: string, args: readonly string[], options?: StartOptions): Promise<OwnedProcess>;
  /**
   * A fresh mode-0700 directory `<tmp>/rea-<prefix>-XXXXXX`, removed by cleanup; if the host is killed
   * (SIGKILL) first, the watchdog removes it once the owned groups are gone (Linux).
   */
  createTempDir(prefix: string): Promise<string>;
  /** A socket path inside a fresh owned temp directory; the socket file and the directory are owned. */
  createSocketPath(name: string): Promise<string>;
  /**
   * Takes ownership of a socket: cleanup calls `close` (if given) and unlinks the socket file.
   * Registering the same path again replaces its `close`.
   */
  registerSocket(path: string, close?: () => Promise<void> | void): void;
  /** Takes ownership of a mount: cleanup calls `unmount`; it remains while the host still lists it. */
  registerMount(mountPoint: string, unmount: () => Promise<void>): void;
  /** Every process this supervisor started, in start order. */
  processes(): readonly OwnedProcess[];
  /** One ownership observation per started process, taken now. */
  lineage(): LineageObservation[];
  /** The owned resources currently present (live owned processes, existing directories, sockets, mounts). */
  owned(): OwnedResource[];
  /**
   * Terminates every owned process (SIGTERM, `graceMs` wait, SIGKILL), then releases mounts, sockets and
   * temp directories. Throws `cleanup_incomplete` (`details.remaining`: [{ kind, identifiers }]) when
   * any owned resource remains. Idempotent: a later call retries what remains.
   */
  closeAll(options?: { graceMs?: number }): Promise<void>;
}

const NAME = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/** Grace period between SIGTERM and SIGKILL when a tool call's supervisor closes, in ms. */
export const CALL_GRACE_MS = 2000;

/**
 * The supervisor a host makes for one tool call (`ToolContext.supervisor`): not tied to the call's
 * signal (a tool may still need it to undo what it did, such as detaching a mount, after
 * cancellation); `executeTool` closes it, with a {@link CALL_GRACE_MS} grace period, when the call
 * ends, fails or is cancelled.
 */
export function createCallSupervisor(): ProcessSupervisor {
  return createProcessSupervisor({ graceMs: CALL_GRACE_MS });
}

/**
 * Creates a supervisor. Nothing is started until `start` is called. Owned process groups whose
 * launcher is still alive are also killed (SIGKILL) if this host process exits without closing the
 * supervisor; a host that handles SIGINT or SIGTERM should abort and `closeAll` instead.
 *
 * Ownership is proven from the Linux process table (pid plus start time, process group, parent links).
 * Where the host has none, only the launcher's group is signalled, and only before its exit is reaped;
 * lineage is then `unavailable` (`process-table-unavailable`).
 */
export function createProcessSupervisor(options: SupervisorOptions = {}): ProcessSupervisor {
  const started: OwnedProcess[] = [];
  const resources: ReleasableResource[] = [];
  let closed = false;
  let closing: Promise<void> | null = null;
  const defaultGrace = options.graceMs ?? 5000;

  const liveProcesses = (): OwnedResource[] =>
    started.flatMap((owned) => {
      const snapshot = owned.lineage();
      if (snapshot.status === 'unavailable') return [];
      const pids = snapshot.descendants.map((d) => d.pid);
      if (snapshot.launcher_alive) pids.unshift(snapshot.launcher.pid);
      return pids.map((pid) => ({ kind: 'processes' as const, id: String(pid) }));
    });

  const closeAll = async (close: { graceMs?: number } = {}): Promise<void> => {
    closed = true;
    const graceMs = close.graceMs ?? defaultGrace;
    const remaining: RemainingResources[] = [];
    const results = await Promise.allSettled(started.map((owned) => owned.terminate({ graceMs })));
    const pids: string[] = [];
    for (const result of results) {
      if (result.status === 'fulfilled') continue;
      const reason: unknown = result.reason;
      if (isReaError(reason) && reason.code === 'cleanup_incomplete') {
        for (const entry of (reason.details['remaining'] ?? []) as unknown as RemainingResources[]) {
          pids.push(...entry.identifiers);
        }
      } else {
        throw reason;
      }
    }
    if (pids.length > 0) remaining.push({ kind: 'processes', identifiers: pids });
    // Processes first (they hold the others), then mounts, sockets, directories.
    const order: Array<ReleasableResource['kind']> = ['mounts', 'sockets', 'temp-directories'];
    for (const kind of order) {
      const left: string[] = [];
      for (const resource of resources.filter((r) => r.kind === kind)) {
        if (resource.present()) await resource.release();
        if (resource.present()) {
          left.push(resource.id);
        } else {
          resources.splice(resources.indexOf(resource), 1);
          if (kind === 'temp-directories') releaseDirectory(resource.id);
        }
      }
      if (left.length > 0) remaining.push({ kind, identifiers: left });
    }
    if (remaining.length === 0) forgetOnExit(supervisor);
    if (remaining.length > 0) throw cleanupIncomplete(remaining);
  };

  const refuseWhenClosed = (what: string): void => {
    if (options.signal?.aborted) {
      throw new ReaError('cancelled', `Cancelled before ${what}.`, { details: { phase: what } });
    }
    if (closed) {
      throw new ReaError('invalid_request', `The process supervisor is closed; cannot ${what}.`, {
        details: { reason: 'supervisor-closed' },
      });
    }
  };

  const supervisor: ProcessSupervisor = {
    async start(command, args, startOptions = {}) {
      refuseWhenClosed(`start ${command}`);
      throwIfAborted(startOptions.signal, `start ${command}`);
      const owned = await startOwnedProcess(command, args, startOptions);
      started.push(owned);
      killOnExit(
        supervisor,
        () => started.map((p) => p.identity),
        () => resources.filter((r) => r.kind === 'temp-directories').map((r) => r.id),
      );
      if (closed) {
        // Closed (or aborted) while spawning: the new process must not outlive the close.
        await owned.terminate({ graceMs: defaultGrace }).catch(() => undefined);
        refuseWhenClosed(`start ${command}`);
      }
      return owned;
    },
    async createTempDir(prefix) {
      refuseWhenClosed('create a temp directory');
      const dir = await createOwnedTempDir(prefix);
      resources.push(dir);
      // Removed by the watchdog, after the owned groups, if this host is killed before it can.
      guardDirectory(dir.path);
      return dir.path;
    },
    async createSocketPath(name) {
      if (!NAME.test(name)) {
        throw new ReaError('invalid_request', `Socket name "${name}" is not a short file name.`, {
          details: { reason: 'invalid-socket-name', name } satisfies JsonObject,
        });
      }
      const dir = await supervisor.createTempDir('socket');
      const path = join(dir, name);
      supervisor.registerSocket(path);
      return path;
    },
    registerSocket(path, close) {
      refuseWhenClosed('register a socket');
      // Registering a path again (e.g. one from createSocketPath) replaces its closer.
      const existing = resources.findIndex((r) => r.kind === 'sockets' && r.id === path);
      if (existing >= 0) resources.splice(existing, 1, ownedSocket(path, close));
      else resources.push(ownedSocket(path, close));
    },
    registerMount(mountPoint, unmount) {
      refuseWhenClosed('register a mount');
      resources.push(ownedMount(mountPoint, unmount));
    },
    processes: () => [...started],
    lineage: () => started.map((owned) => owned.lineage()),
    owned: () => [...liveProcesses(), ...resources.filter((r) => r.present()).map((r) => ({ kind: r.kind, id: r.id }))],
    closeAll: (close) => {
      // Concurrent calls share one cleanup; a later call retries what remains.
      closing ??= closeAll(close).finally(() => {
        closing = null;
      });
      return closing;
    },
  };

  if (options.signal) {
    const onAbort = () => void supervisor.closeAll({ graceMs: Math.min(defaultGrace, 1000) }).catch(() => undefined);
    if (options.signal.aborted) closed = true;
    else options.signal.addEventListener('abort', onAbort, { once: true });
  }
  return supervisor;
}

import { readFileSync } from 'node:fs';
import type { OwnedProcess } from '@rea/provider-kit';
import type { SignalAttempt } from './schema.js';

/** Start time of `pid` in clock ticks (`/proc/<pid>/stat` field 22), or null when it is gone. */
function startTicks(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]);
  } catch {
    return null;
  }
}

function send(pid: number, name: NodeJS.Signals): SignalAttempt['result'] {
  try {
    process.kill(pid, name);
    return 'delivered';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ESRCH' ? 'not-running' : 'denied';
  }
}

/**
 * Sends `name` to the launched process only, while its exit has not been reaped (until then its pid
 * cannot name another process). Returns the attempt.
 */
export function signalLauncher(owned: OwnedProcess, name: NodeJS.Signals, atMs: number): SignalAttempt {
  const pid = owned.identity.pid;
  const result = owned.exit() === null ? send(pid, name) : 'not-running';
  return { signal: name, pid, target: 'process', phase: 'action', result, at_ms: atMs };
}

/**
 * Sends `name` to everything a fresh ownership check proves REA owns: the launcher's process group
 * while the launcher is unreaped (it leads the group), and each descendant outside the group whose
 * start time still matches the one observed. Nothing else is signalled. Returns every attempt.
 */
export function signalOwned(owned: OwnedProcess, name: NodeJS.Signals, atMs: number): SignalAttempt[] {
  const attempts: SignalAttempt[] = [];
  const { pgid } = owned.identity;
  const lineage = owned.lineage();
  // The group id cannot be reallocated while a member the check proved ours lives.
  const groupLive =
    lineage.status === 'verified'
      ? lineage.launcher_alive || lineage.descendants.some((entry) => entry.pgid === pgid)
      : owned.exit() === null;
  if (groupLive) {
    attempts.push({
      signal: name,
      pid: pgid,
      target: 'group',
      phase: 'cleanup',
      result: send(-pgid, name),
      at_ms: atMs,
    });
  }
  if (lineage.status !== 'verified') return attempts;
  for (const process of lineage.descendants) {
    if (process.pgid === pgid && groupLive) continue;
    const now = startTicks(process.pid);
    const result = now === process.start_ticks ? send(process.pid, name) : 'not-owned';
    attempts.push({ signal: name, pid: process.pid, target: 'descendant', phase: 'cleanup', result, at_ms: atMs });
  }
  return attempts;
}

/** True while the launcher or any descendant proven owned is still alive. */
export function anyOwnedAlive(owned: OwnedProcess): boolean {
  const lineage = owned.lineage();
  if (lineage.status !== 'verified') return owned.exit() === null;
  return lineage.launcher_alive || lineage.descendants.length > 0;
}

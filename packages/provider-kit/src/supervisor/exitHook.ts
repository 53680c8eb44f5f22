import { readProc } from './procfs.js';
import type { ProcessIdentity } from './ownedProcess.js';

// Supervisors with started processes, and how to list their launchers: if this host process exits
// without closing them, their groups are killed (synchronously, as 'exit' handlers must be).
const live = new Map<object, () => readonly ProcessIdentity[]>();
let installed = false;

function killAll(): void {
  for (const list of live.values()) {
    for (const identity of list()) {
      const entry = readProc(identity.pid);
      // Only a launcher still alive with its recorded start time proves the group is ours.
      if (!entry || entry.startTicks !== identity.start_ticks) continue;
      try {
        process.kill(-identity.pgid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}

/** Registers a supervisor's launchers for the exit-time kill. */
export function killOnExit(owner: object, list: () => readonly ProcessIdentity[]): void {
  live.set(owner, list);
  if (!installed) {
    process.on('exit', killAll);
    installed = true;
  }
}

/** Forgets a supervisor once everything it owned is gone. */
export function forgetOnExit(owner: object): void {
  live.delete(owner);
  if (live.size === 0 && installed) {
    process.removeListener('exit', killAll);
    installed = false;
  }
}

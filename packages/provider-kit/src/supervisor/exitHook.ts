import { rmSync } from 'node:fs';
import { readProc } from './procfs.js';
import { mountsUnder } from './resources.js';
import type { ProcessIdentity } from './ownedProcess.js';

// Supervisors with started processes, and how to list their launchers and temp directories: if this
// host process exits without closing them, their groups are killed and then their directories removed
// (synchronously, as 'exit' handlers must be).
const live = new Map<object, { launchers: () => readonly ProcessIdentity[]; dirs: () => readonly string[] }>();
let installed = false;

function killAll(): void {
  for (const { launchers } of live.values()) {
    for (const identity of launchers()) {
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
  for (const { dirs } of live.values()) {
    for (const dir of dirs()) {
      try {
        // Never recursively through a mount, as at an ordinary close.
        if (mountsUnder(dir).length === 0) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        // Left for the next start's temp cleanup; nothing more can be done while exiting.
      }
    }
  }
}

/** Registers a supervisor's launchers for the exit-time kill, and its temp directories for removal after it. */
export function killOnExit(
  owner: object,
  launchers: () => readonly ProcessIdentity[],
  dirs: () => readonly string[] = () => [],
): void {
  live.set(owner, { launchers, dirs });
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

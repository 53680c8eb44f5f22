// A process outside this one that ends the owned process groups if this process dies without a chance
// to (SIGKILL, a crash): the 'exit' hook (./exitHook.js) covers every other way out. It holds a list
// of launchers (pid, group, start time) sent over a pipe; when the pipe reaches its end, which the
// kernel causes however this process ends, it kills each group whose launcher still runs with the start
// time recorded, the same proof of ownership as the exit hook's. A POSIX shell, so that it costs no
// runtime of its own.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { ProcessIdentity } from './ownedProcess.js';

const SCRIPT = `trap '' HUP INT TERM
list=""
while IFS= read -r line; do
  case $line in
    +*) list="$list
\${line#+}" ;;
    -*) list=$(printf '%s\\n' "$list" | grep -v "^\${line#-} ") ;;
  esac
done
printf '%s\\n' "$list" | while read -r pid pgid ticks; do
  [ -n "$pid" ] || continue
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
  now=$(printf '%s' "\${stat##*) }" | cut -d' ' -f20)
  [ "$now" = "$ticks" ] && kill -KILL "-$pgid" 2>/dev/null
done
`;

let watchdog: ChildProcess | null = null;
let failed = false;

function started(): ChildProcess | null {
  if (watchdog !== null || failed) return watchdog;
  try {
    // Its own session: a terminal's signals to this process's group do not reach it.
    const child = spawn('/bin/sh', ['-c', SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    child.on('error', () => {
      failed = true;
      watchdog = null;
    });
    child.stdin?.on('error', () => undefined);
    // Neither the watchdog nor its pipe keeps this process alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    watchdog = child;
  } catch {
    failed = true;
  }
  return watchdog;
}

/** Has the watchdog end `launcher`'s group if this process dies first (Linux: needs its start time). */
export function guardGroup(launcher: ProcessIdentity): void {
  if (launcher.start_ticks === null || process.platform !== 'linux') return;
  started()?.stdin?.write(`+${launcher.pid} ${launcher.pgid} ${launcher.start_ticks}\n`);
}

/** Takes `launcher` off the watchdog's list: it has exited. */
export function releaseGroup(launcher: ProcessIdentity): void {
  if (watchdog === null || launcher.start_ticks === null) return;
  watchdog.stdin?.write(`-${launcher.pid}\n`);
}

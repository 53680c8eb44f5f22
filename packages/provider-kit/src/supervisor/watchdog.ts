// A process outside this one that ends the owned process groups if this process dies without a chance
// to (SIGKILL, a crash): the 'exit' hook (./exitHook.js) covers every other way out. It holds a list
// of launchers (pid, group, start time) sent over a pipe; when the pipe reaches its end, which the
// kernel causes however this process ends, it kills each group whose launcher still runs with the start
// time recorded, the same proof of ownership as the exit hook's. A POSIX shell, so that it costs no
// runtime of its own.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
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
let pipe: Writable | null = null;
let failed = false;

function started(): ChildProcess | null {
  if (watchdog !== null || failed) return watchdog;
  try {
    // Started by a shell that exits at once, so that it is no descendant of this process (it is no
    // process of any call), in a session of its own (a terminal's signals to this process's group do
    // not reach it). The pipe is its descriptor 3, made its standard input: Node.js closes a child's
    // standard input when the child exits, and a shell gives a background command /dev/null as its
    // standard input before any redirection.
    const child = spawn('/bin/sh', ['-c', 'sh -c "$1" rea-watchdog <&3 3<&- &', 'sh', SCRIPT], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      detached: true,
    });
    child.on('error', () => {
      failed = true;
      watchdog = null;
    });
    pipe = child.stdio[3] as Writable | null;
    pipe?.on('error', () => undefined);
    // Neither the watchdog nor its pipe keeps this process alive.
    child.unref();
    (pipe as unknown as { unref?: () => void } | null)?.unref?.();
    watchdog = child;
  } catch {
    failed = true;
  }
  return watchdog;
}

/** Has the watchdog end `launcher`'s group if this process dies first (Linux: needs its start time). */
export function guardGroup(launcher: ProcessIdentity): void {
  if (launcher.start_ticks === null || process.platform !== 'linux') return;
  if (started() !== null) pipe?.write(`+${launcher.pid} ${launcher.pgid} ${launcher.start_ticks}\n`);
}

/** Takes `launcher` off the watchdog's list: it has exited. */
export function releaseGroup(launcher: ProcessIdentity): void {
  if (watchdog === null || launcher.start_ticks === null) return;
  pipe?.write(`-${launcher.pid}\n`);
}

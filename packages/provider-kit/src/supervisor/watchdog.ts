// A process outside this one that ends the owned process groups, and then removes the owned temp
// directories, if this process dies without a chance to (SIGKILL, a crash): the 'exit' hook
// (./exitHook.js) covers every other way out. It holds a list of launchers (pid, group, start time) and
// one of directories, sent over a pipe; when the pipe reaches its end, which the kernel causes however
// this process ends, it kills each group whose launcher still runs with the start time recorded (the
// same proof of ownership as the exit hook's), waits a bounded time for the killed groups to be gone,
// and removes each listed directory that is still a real directory (no symlink) directly under a parent
// reached through no symlink, named `rea-…`, with nothing mounted below it. A POSIX shell, so that it
// costs no runtime of its own.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import type { Writable } from 'node:stream';
import type { ProcessIdentity } from './ownedProcess.js';

// Lines: "+<pid> <pgid> <ticks>" guards a group, "-<pid>" releases it; "+/<path>" lists a directory,
// "-/<path>" forgets it. Paths hold no blank, newline or glob character (guardDirectory checks), so the
// lists split on blanks with globbing off.
const SCRIPT = `trap '' HUP INT TERM
set -f
list=""
dirs=""
while IFS= read -r line; do
  case $line in
    +/*) kept=""
      for d in $dirs; do [ -d "$d" ] && kept="$kept $d"; done
      dirs="$kept \${line#+}" ;;
    -/*) kept=""
      for d in $dirs; do [ "$d" = "\${line#-}" ] || kept="$kept $d"; done
      dirs=$kept ;;
    +*) list="$list
\${line#+}" ;;
    -*) list=$(printf '%s\\n' "$list" | grep -v "^\${line#-} ") ;;
  esac
done
killed=$(printf '%s\\n' "$list" | while read -r pid pgid ticks; do
  [ -n "$pid" ] || continue
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
  now=$(printf '%s' "\${stat##*) }" | cut -d' ' -f20)
  [ "$now" = "$ticks" ] && kill -KILL "-$pgid" 2>/dev/null && printf '%s ' "$pgid"
done)
[ -n "$dirs" ] || exit 0
running() {
  set +f
  for f in /proc/[0-9]*/stat; do
    read -r s < "$f" 2>/dev/null || continue
    s=\${s##*) }
    [ "\${s%% *}" = Z ] && continue
    s=\${s#* }
    s=\${s#* }
    case " $killed " in *" \${s%% *} "*) set -f; return 0 ;; esac
  done
  set -f
  return 1
}
mounted() {
  [ -r /proc/self/mountinfo ] || return 0
  while read -r _ _ _ _ point _; do
    case $point in "$1" | "$1"/*) return 0 ;; esac
  done < /proc/self/mountinfo
  return 1
}
tries=0
while [ -n "$killed" ] && [ $tries -lt 100 ] && running; do
  sleep 0.05 2>/dev/null || sleep 1
  tries=$((tries + 1))
done
for d in $dirs; do
  case \${d##*/} in rea-?*) ;; *) continue ;; esac
  case $d in /*/*) ;; *) continue ;; esac
  case $d in */./* | */../* | *//*) continue ;; esac
  [ -d "$d" ] && [ ! -L "$d" ] || continue
  [ "$(cd -P -- "\${d%/*}" 2>/dev/null && pwd)" = "\${d%/*}" ] || continue
  mounted "$d" && continue
  rm -rf -- "$d" 2>/dev/null || { sleep 1; rm -rf -- "$d" 2>/dev/null; }
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

/** The characters a directory handed to the watchdog may hold: none a shell splits, globs or quotes on. */
const PLAIN_PATH = /^\/[A-Za-z0-9._/-]+$/;

/**
 * The real path of `dir` when it may be handed to the watchdog: a directory named `rea-…` right under
 * the real path of the system temp directory, reached through no symlink, and spelled in plain
 * characters; otherwise null.
 */
function watchableDirectory(dir: string): string | null {
  let real: string;
  let root: string;
  try {
    real = realpathSync(dir);
    root = realpathSync(tmpdir());
  } catch {
    return null;
  }
  if (dirname(real) !== root || !/^rea-[a-z0-9-]+$/i.test(basename(real))) return null;
  if (!PLAIN_PATH.test(real) || real.split('/').some((part) => part === '.' || part === '..')) return null;
  return real;
}

// Each directory handed to the watchdog, by the path it was handed under, with the real path sent.
const directories = new Map<string, string>();

/**
 * Has the watchdog remove `dir` (a temp directory this process created for what it owns) once the
 * owned groups are gone, if this process dies first (Linux). A directory that {@link watchableDirectory}
 * refuses is not handed over; the exit hook and an ordinary close still remove it.
 */
export function guardDirectory(dir: string): void {
  if (process.platform !== 'linux') return;
  const real = watchableDirectory(dir);
  if (real === null || started() === null) return;
  // Those removed by other means are dropped here (the watchdog drops them likewise).
  for (const listed of directories.keys()) if (!existsSync(listed)) directories.delete(listed);
  directories.set(dir, real);
  pipe?.write(`+${real}\n`);
}

/** Takes `dir` off the watchdog's list: it has been removed. */
export function releaseDirectory(dir: string): void {
  const real = directories.get(dir);
  if (real === undefined) return;
  directories.delete(dir);
  pipe?.write(`-${real}\n`);
}

/** Parsers of the text device commands print. Each takes the command's stdout. */

/** `getprop`: lines of `[key]: [value]`. */
export function parseProperties(text: string): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const match of text.matchAll(/^\[([^\]]+)\]: \[([^\]]*)\]$/gm)) properties[match[1]!] = match[2]!;
  return properties;
}

/** `pm list features`: `feature:<name>` or `feature:<name>=<value>` lines. */
export function parseFeatures(text: string): string[] {
  return [...text.matchAll(/^feature:(\S+)$/gm)].map((m) => m[1]!).sort();
}

/** `wm size; wm density`: physical and override size and density. */
export function parseDisplay(text: string): {
  width: number | null;
  height: number | null;
  density: number | null;
  override_size: string | null;
  override_density: number | null;
} {
  const size = /Physical size: (\d+)x(\d+)/.exec(text);
  const density = /Physical density: (\d+)/.exec(text);
  return {
    width: size ? Number(size[1]) : null,
    height: size ? Number(size[2]) : null,
    density: density ? Number(density[1]) : null,
    override_size: /Override size: (\d+x\d+)/.exec(text)?.[1] ?? null,
    override_density: Number(/Override density: (\d+)/.exec(text)?.[1] ?? Number.NaN) || null,
  };
}

/** `ps -A -o PID,PPID,USER,NAME`: one process a row after the header. */
export function parseProcesses(text: string): { pid: number; ppid: number; user: string; name: string }[] {
  return text
    .split('\n')
    .slice(1)
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), user: m[3]!, name: m[4]! }));
}

/**
 * The toolbox `ps` of Android 7 and older (no `-A`, no `-o`): `USER PID PPID VSIZE RSS WCHAN PC [S] NAME`,
 * the name last.
 */
export function parseLegacyProcesses(text: string): { pid: number; ppid: number; user: string; name: string }[] {
  return text
    .split('\n')
    .slice(1)
    .map((line) => /^(\S+)\s+(\d+)\s+(\d+)\s.*?(\S+)\s*$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[2]), ppid: Number(m[3]), user: m[1]!, name: m[4]! }));
}

/**
 * The launcher activity of `name` in `dumpsys package <name>` (for devices without `cmd package
 * resolve-activity`): the first activity of the resolver table whose filter has the MAIN action and the
 * LAUNCHER category.
 */
export function parseLauncherActivity(text: string, name: string): string | null {
  const entry = /^\s+[0-9a-f]+ (\S+\/\S+) filter [0-9a-f]+\s*$/;
  let current: { component: string; main: boolean; launcher: boolean } | null = null;
  const done = () => (current !== null && current.main && current.launcher ? current.component : null);
  for (const line of text.split('\n')) {
    const m = entry.exec(line);
    if (m !== null || /^\S/.test(line) || /^\s+[\w.]+:\s*$/.test(line)) {
      if (done() !== null) return done();
      current = m !== null && m[1]!.startsWith(`${name}/`) ? { component: m[1]!, main: false, launcher: false } : null;
      continue;
    }
    if (current === null) continue;
    if (/Action: "android\.intent\.action\.MAIN"/.test(line)) current.main = true;
    if (/Category: "android\.intent\.category\.LAUNCHER"/.test(line)) current.launcher = true;
  }
  return done();
}

/** `pm list packages -f -U`: `package:<apk>=<name> uid:<uid>` lines (the apk path may contain `=`). */
export function parsePackages(text: string): { package: string; apk_path: string; uid: number | null }[] {
  return [...text.matchAll(/^package:(.+)=([\w.]+)(?: uid:(\d+))?\s*$/gm)].map((m) => ({
    package: m[2]!,
    apk_path: m[1]!,
    uid: m[3] === undefined ? null : Number(m[3]),
  }));
}

/** `pm path <package>`: the APK paths (base and splits). */
export function parsePackagePaths(text: string): string[] {
  return [...text.matchAll(/^package:(.+?)\s*$/gm)].map((m) => m[1]!);
}

/** The facts of `dumpsys package <name>` a reader needs first (the first block for the package). */
export function parsePackageDump(text: string): {
  version_name: string | null;
  version_code: number | null;
  min_sdk: number | null;
  target_sdk: number | null;
  first_install_time: string | null;
  last_update_time: string | null;
  installer: string | null;
  flags: string[];
  requested_permissions: string[];
} {
  const first = (pattern: RegExp) => pattern.exec(text)?.[1] ?? null;
  const number = (pattern: RegExp) => {
    const value = first(pattern);
    return value === null ? null : Number(value);
  };
  const requested = /^\s+requested permissions:\n((?:\s{6,}\S.*\n?)*)/m.exec(text)?.[1] ?? '';
  return {
    version_name: first(/versionName=(\S+)/),
    version_code: number(/versionCode=(\d+)/),
    min_sdk: number(/minSdk=(\d+)/),
    target_sdk: number(/targetSdk=(\d+)/),
    first_install_time: first(/firstInstallTime=(.+)/)?.trim() ?? null,
    last_update_time: first(/lastUpdateTime=(.+)/)?.trim() ?? null,
    installer: first(/installerPackageName=(\S+)/),
    flags: (first(/^\s+flags=\[ ?(.*?) ?\]/m) ?? '').split(/\s+/).filter((f) => f !== ''),
    requested_permissions: requested
      .split('\n')
      .map((l) => l.trim().split(/[\s:]/)[0]!)
      .filter((p) => p !== ''),
  };
}

/** `adb ls <dir>`: hex mode, size and mtime, then the name; `.` and `..` dropped. */
export function parseSyncListing(
  text: string,
): { name: string; type: 'file' | 'directory' | 'symlink' | 'other'; mode: string; size: number; mtime: number }[] {
  return [...text.matchAll(/^([0-9a-f]{8}) ([0-9a-f]{8}) ([0-9a-f]{8}) (.+)$/gm)]
    .filter((m) => m[4] !== '.' && m[4] !== '..')
    .map((m) => {
      const mode = Number.parseInt(m[1]!, 16);
      const kind = mode & 0o170000;
      const type =
        kind === 0o100000 ? 'file' : kind === 0o040000 ? 'directory' : kind === 0o120000 ? 'symlink' : 'other';
      return {
        name: m[4]!,
        type,
        mode: (mode & 0o7777).toString(8).padStart(4, '0'),
        size: Number.parseInt(m[2]!, 16),
        mtime: Number.parseInt(m[3]!, 16),
      };
    });
}

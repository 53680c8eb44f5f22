import { randomBytes } from 'node:crypto';
import type { ToolContext } from '@rea/provider-kit';
import { adbFailed, runAdb } from './adb.js';
import type { AdbRun, AdbRunOptions } from './adb.js';
import type { AdbLocation } from './locate.js';

/** Quotes one word for the device's POSIX shell. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The shell of one device: runs a command line of quoted words there. */
export interface DeviceShell {
  readonly serial: string;
  /** Runs `words` (each quoted) on the device; returns the run whatever its exit status. */
  run(words: readonly string[], options?: AdbRunOptions): Promise<AdbRun>;
  /** Runs `words` and returns stdout as text; `execution_failure` on a non-zero exit. */
  text(what: string, words: readonly string[], options?: AdbRunOptions): Promise<string>;
  /** The device's API level (`ro.build.version.sdk`), or null when it does not say; read once. */
  sdk(): Promise<number | null>;
}

/**
 * The exit status of a run on a device without shell protocol v2 (Android 6 and older), whose shell
 * service reports none: the command line ends with `; echo <marker>$?` and the status is read back
 * from the end of stdout, which is cut there. Such a device's shell runs on a terminal, which turns
 * each line feed into CR LF; text is given back with plain line feeds.
 */
export function legacyRun(run: AdbRun, marker: string): AdbRun {
  const at = run.stdout.lastIndexOf(marker);
  const plain = (bytes: Buffer) => Buffer.from(bytes.toString('latin1').replaceAll('\r\n', '\n'), 'latin1');
  if (at < 0) return { ...run, stdout: plain(run.stdout), exitCode: run.truncated ? run.exitCode : null };
  const status = /^(\d+)/.exec(run.stdout.subarray(at + marker.length, at + marker.length + 8).toString('latin1'));
  return { ...run, stdout: plain(run.stdout.subarray(0, at)), exitCode: status === null ? null : Number(status[1]) };
}

/** A {@link DeviceShell} for `serial`, running adb through the call's supervisor. */
export function deviceShell(
  adb: AdbLocation,
  context: Pick<ToolContext, 'supervisor' | 'signal'>,
  serial: string,
): DeviceShell {
  let legacy: Promise<boolean> | null = null;
  let sdk: Promise<number | null> | null = null;
  const marker = `REA-EXIT-${randomBytes(6).toString('hex')}:`;
  const hasShellV2 = async () => {
    const features = await runAdb(adb, context, ['-s', serial, 'features'], { serial });
    return features.exitCode === 0 && /(?:^|[\s,])shell_v2(?:$|[\s,])/.test(features.stdout.toString('utf8'));
  };
  const run = async (words: readonly string[], options: AdbRunOptions = {}) => {
    const line = words.map(shellQuote).join(' ');
    legacy ??= hasShellV2().then((v2) => !v2);
    if (!(await legacy)) return runAdb(adb, context, ['-s', serial, 'shell', line], { serial, ...options });
    const raw = await runAdb(adb, context, ['-s', serial, 'shell', `${line}; echo ${marker}$?`], {
      serial,
      ...options,
    });
    return legacyRun(raw, marker);
  };
  const shell: DeviceShell = {
    serial,
    run,
    async text(what, words, options) {
      const result = await run(words, options);
      if (result.exitCode !== 0) throw adbFailed(what, result, serial);
      return result.stdout.toString('utf8');
    },
    sdk() {
      sdk ??= run(['getprop', 'ro.build.version.sdk']).then((r) => {
        const level = r.exitCode === 0 ? Number.parseInt(r.stdout.toString('utf8').trim(), 10) : Number.NaN;
        return Number.isFinite(level) ? level : null;
      });
      return sdk;
    },
  };
  return shell;
}

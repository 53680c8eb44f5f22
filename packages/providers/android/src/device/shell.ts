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
}

/** A {@link DeviceShell} for `serial`, running adb through the call's supervisor. */
export function deviceShell(
  adb: AdbLocation,
  context: Pick<ToolContext, 'supervisor' | 'signal'>,
  serial: string,
): DeviceShell {
  const run = (words: readonly string[], options: AdbRunOptions = {}) =>
    runAdb(adb, context, ['-s', serial, 'shell', words.map(shellQuote).join(' ')], { serial, ...options });
  return {
    serial,
    run,
    async text(what, words, options) {
      const result = await run(words, options);
      if (result.exitCode !== 0) throw adbFailed(what, result, serial);
      return result.stdout.toString('utf8');
    },
  };
}

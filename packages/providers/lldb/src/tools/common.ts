import { readSettings } from '@rea/provider-kit';
import type { ToolEffects } from '@rea/provider-kit';
import { LLDB_SETTINGS } from '../settings.js';

/** Effects of running a target program: it is foreign code, so the tool is destructive. */
export const RUNS_FOREIGN_CODE: Readonly<ToolEffects> = Object.freeze({
  readOnly: false,
  mutatesSession: true,
  writesFilesystem: false,
  launchesProcess: true,
  executesForeignCode: true,
  mutatesDevice: false,
  mayDiscardData: false,
  idempotent: false,
  openWorld: true,
});

/** The provider's settings as the host validated them at start. */
export function lldbSettings(): {
  lldbPythonPath: string | null;
  lldbPython: string | null;
  lldbStartupTimeoutMs: number;
} {
  return readSettings([LLDB_SETTINGS], process.env) as unknown as ReturnType<typeof lldbSettings>;
}

/**
 * The environment variables the LLDB provider reads. A module of its own (`@rea/provider-lldb/settings`)
 * that loads nothing else, so a host can validate them at startup without loading the provider.
 */
import { defineSettings, integerSetting, pathSetting } from '@rea/provider-kit';

/** How long the LLDB agent may take to load LLDB's Python module and answer, in ms, unless set. */
export const LLDB_STARTUP_TIMEOUT_MS = 30_000;

/** The LLDB provider's settings. */
export const LLDB_SETTINGS = defineSettings('lldb', {
  lldbPythonPath: pathSetting(
    'REA_LLDB_PYTHONPATH',
    "Directory holding LLDB's Python module (`lldb`); unset: what `lldb -P` prints, then /usr/lib/llvm-*/lib/python3*/dist-packages.",
  ),
  lldbPython: pathSetting(
    'REA_LLDB_PYTHON',
    'The Python 3 interpreter that loads LLDB and runs the PTY helper (default python3).',
  ),
  lldbStartupTimeoutMs: integerSetting('REA_LLDB_STARTUP_TIMEOUT_MS', {
    fallback: LLDB_STARTUP_TIMEOUT_MS,
    min: 1,
    max: 2_147_483_647,
    description: 'Deadline for the LLDB agent to load LLDB and answer before tracing starts, in ms.',
  }),
});

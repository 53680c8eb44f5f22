// observe_native_calls at its deadline on a program that stops at a traced function without pause: the
// trace answers every time (its answer does not depend on how the program is then ended), and the
// program does not outlive the call.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceResult } from '../src/trace/schema.js';
import { fixture, observe, run, running } from './support.js';

jest.setTimeout(300_000);

/**
 * A stand-in for LLDB 14's crash in SBProcess.Kill (it segfaults at times when the program is running
 * and about to stop again): an interpreter that runs REA's real agent with the real LLDB module, except
 * that SBProcess.Kill ends the agent by SIGSEGV.
 */
const CRASHING_KILL_PYTHON = (python: string) => `#!${python}
import builtins, os, signal, sys
real_import = builtins.__import__
def hooked(name, *args, **kwargs):
    module = real_import(name, *args, **kwargs)
    if name == "lldb" and hasattr(module, "SBProcess") and not hasattr(module, "_crashes"):
        module._crashes = True
        def crashing(self):
            os.kill(os.getpid(), signal.SIGSEGV)
        module.SBProcess.Kill = crashing
    return module
builtins.__import__ = hooked
source = sys.argv[sys.argv.index("-c") + 1]
sys.argv = ["-c"]
exec(compile(source, "<agent>", "exec"), {"__name__": "__main__"})
`;

describe('observe_native_calls at its deadline, on a program that never pauses between traced calls', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rea-lldb-deadline-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const trace = async (marker: string) => {
    const result = await run<TraceResult>(observe, {
      executable: fixture('spin'),
      args: [marker],
      targets: [{ kind: 'function', name: 'traced' }],
      max_events: 2,
      deadline_ms: 1500,
    });
    return { result, pid: Number(readFileSync(marker, 'utf8')) };
  };

  it('should answer every time with the calls counted, and end the program (real LLDB)', async () => {
    // Ending the program through LLDB lost about one answer in four here.
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const { result, pid } = await trace(join(dir, `program-${attempt}.pid`));
      expect([result.stopped_by, result.exit_code, result.crash]).toEqual(['deadline', null, null]);
      expect(result.targets[0]!.status).toBe('traced');
      expect(result.targets[0]!.calls).toBeGreaterThan(0);
      expect(result.events).toHaveLength(Math.min(2, result.targets[0]!.calls));
      expect(running(pid)).toBe(false);
    }
  });

  it('should answer even when ending the program through LLDB would crash the agent (stand-in LLDB)', async () => {
    const python = join(dir, 'python-crashing-kill');
    writeFileSync(python, CRASHING_KILL_PYTHON(process.env['REA_LLDB_PYTHON'] ?? '/usr/bin/env python3'));
    chmodSync(python, 0o755);
    process.env['REA_LLDB_PYTHON'] = python;
    try {
      const { result, pid } = await trace(join(dir, 'program-stand-in.pid'));
      expect([result.stopped_by, result.targets[0]!.status]).toEqual(['deadline', 'traced']);
      expect(running(pid)).toBe(false);
    } finally {
      delete process.env['REA_LLDB_PYTHON'];
    }
  });
});

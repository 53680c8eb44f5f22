// observe_native_calls when LLDB stops answering after the trace deadline, and when a trace is cancelled
// after calls were counted: both fail typed, with the calls seen so far, and leave nothing running.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceResult } from '../src/trace/schema.js';
import { failure, fixture, observe, run, running, whenWritten } from './support.js';

jest.setTimeout(300_000);

/**
 * A stand-in for an LLDB that hangs (it once did inside an IFUNC resolver it called in the program):
 * an interpreter that runs REA's real agent with the real LLDB module, except that from the fourth
 * breakpoint stop on, resuming the program never returns. It writes its own PID beside itself.
 */
const STALLING_PYTHON = (python: string) => `#!${python}
import builtins, os, sys, time
with open(os.path.realpath(__file__) + ".pid", "w") as marker:
    marker.write("%d" % os.getpid())
real_import = builtins.__import__
resumed = [0]
def hooked(name, *args, **kwargs):
    module = real_import(name, *args, **kwargs)
    if name == "lldb" and hasattr(module, "SBProcess") and not hasattr(module, "_stalls"):
        module._stalls = True
        resume = module.SBProcess.Continue
        def stalling(self):
            resumed[0] += 1
            while resumed[0] >= 4:
                time.sleep(60)
            return resume(self)
        module.SBProcess.Continue = stalling
    return module
builtins.__import__ = hooked
source = sys.argv[sys.argv.index("-c") + 1]
sys.argv = ["-c"]
exec(compile(source, "<agent>", "exec"), {"__name__": "__main__"})
`;

describe('observe_native_calls when LLDB stops answering', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rea-lldb-stall-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('should kill LLDB and the program after the deadline and fail with the calls counted so far (stand-in LLDB)', async () => {
    const python = join(dir, 'python-stalling');
    writeFileSync(python, STALLING_PYTHON(process.env['REA_LLDB_PYTHON'] ?? '/usr/bin/env python3'));
    chmodSync(python, 0o755);
    process.env['REA_LLDB_PYTHON'] = python;
    try {
      // The fixture calls traced() 3 times, sleeps 2 s (the agent reports its count meanwhile) and calls
      // it again: the fourth stop is never resumed, and the agent's loop never reaches its deadline.
      const error = await failure(observe, {
        executable: fixture('stall'),
        args: [join(dir, 'program.pid')],
        targets: [{ kind: 'function', name: 'traced' }],
        deadline_ms: 8000,
      });
      expect([error.code, error.details['reason'], error.details['phase'], error.details['deadline_ms']]).toEqual([
        'provider_timeout',
        'lldb-unresponsive',
        'tracing',
        8000,
      ]);
      const seen = error.details['partial_observation'] as Record<string, unknown>;
      expect(seen).toMatchObject({
        calls: 3,
        targets: [{ kind: 'function', name: 'traced', calls: 3 }],
        stdout: { text: 'three calls\n' },
        coverage: 'partial',
      });
      const agent = Number(readFileSync(`${python}.pid`, 'utf8'));
      const program = Number(readFileSync(join(dir, 'program.pid'), 'utf8'));
      expect([running(agent), running(program)]).toEqual([false, false]);
    } finally {
      delete process.env['REA_LLDB_PYTHON'];
    }
  });

  it('should still answer at the deadline when LLDB keeps answering', async () => {
    const result = await run<TraceResult>(observe, {
      executable: fixture('stall'),
      targets: [{ kind: 'function', name: 'traced' }],
      deadline_ms: 4000,
    });
    expect([result.stopped_by, result.exit_code]).toEqual(['deadline', null]);
    expect(result.targets[0]!.calls).toBeGreaterThanOrEqual(3);
  });
});

describe('observe_native_calls cancelled while tracing', () => {
  it('should report the calls counted and the time elapsed so far, and leave no process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-lldb-cancel-'));
    try {
      const controller = new AbortController();
      const marker = join(dir, 'program.pid');
      // The fixture writes its PID once it has made 3 calls (each stopped at and counted by then).
      const program = whenWritten(marker).then((text) => {
        controller.abort();
        return Number(text);
      });
      const error = await failure(
        observe,
        {
          executable: fixture('stall'),
          args: [marker],
          targets: [{ kind: 'function', name: 'traced' }],
          deadline_ms: 120_000,
        },
        { signal: controller.signal },
      );
      expect([error.code, error.details['phase']]).toEqual(['cancelled', 'tracing']);
      const seen = error.details['partial_observation'] as { calls: number; elapsed_ms: number };
      expect(seen).toMatchObject({ calls: 3, targets: [{ kind: 'function', name: 'traced', calls: 3 }] });
      expect(seen.elapsed_ms).toBeGreaterThan(0);
      expect(running(await program)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

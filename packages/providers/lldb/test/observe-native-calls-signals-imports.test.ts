import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceResult } from '../src/trace/schema.js';
import { executeTool } from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';
import { failure, fixture, observe, run } from './support.js';

jest.setTimeout(600_000);

describe('observe_native_calls signals', () => {
  it('should deliver a handled signal and let the program run on to its exit', async () => {
    const result = await run<TraceResult>(observe, {
      executable: fixture('signals'),
      args: ['handled'],
      targets: [{ kind: 'function', name: 'handler', arguments: 1 }],
    });
    expect([result.stopped_by, result.exit_code, result.crash, result.targets[0]!.calls]).toEqual(['exit', 7, null, 1]);
    expect(result.events[0]!['args']).toEqual(['0xa']);
    expect(result.stdout.text).toBe('handled 10\n');
  });

  it('should report a process ended by a signal as that signal, not as an exit code', async () => {
    const killed = await run<TraceResult>(observe, {
      executable: fixture('signals'),
      args: ['alarm'],
      targets: [{ kind: 'function', name: 'handler' }],
    });
    expect([killed.stopped_by, killed.exit_code, killed.crash?.['signal']]).toEqual(['crash', null, 'SIGALRM']);
    const exited = await run<TraceResult>(observe, {
      executable: fixture('signals'),
      args: ['exit'],
      targets: [{ kind: 'function', name: 'handler' }],
    });
    expect([exited.stopped_by, exited.exit_code, exited.crash]).toEqual(['exit', 14, null]);
  });

  it('should state that exit status 9 may be SIGKILL, which LLDB reports the same way', async () => {
    const limitationsOf = async (executable: string, args: string[]) => {
      const outcome = await executeTool(
        observe,
        { executable, args, targets: [{ kind: 'function', name: 'main' }] },
        quietToolContext(),
      );
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      const result = outcome.record.normalized_result as unknown as TraceResult;
      return [result.stopped_by, result.exit_code, outcome.record.limitations.map((l) => l.kind)];
    };
    // Killed by SIGKILL (which cannot be stopped at), and exited with 9: LLDB 14 answers both as exit 9.
    expect(await limitationsOf(fixture('signals'), ['kill'])).toEqual(['exit', 9, ['exit-or-sigkill']]);
    expect(await limitationsOf(fixture('status'), ['9'])).toEqual(['exit', 9, ['exit-or-sigkill']]);
    expect(await limitationsOf(fixture('status'), ['14'])).toEqual(['exit', 14, []]);
  });
});

describe('observe_native_calls imports', () => {
  it('should break at entry points only, with loaded addresses', async () => {
    const result = await run<TraceResult>(observe, {
      executable: fixture('imports'),
      targets: [{ kind: 'import', name: 'malloc', arguments: 1 }],
    });
    const malloc = result.targets[0]!;
    // libc's malloc: one entry point, not ld.so's inlined call sites or unresolved locations.
    expect([malloc.status, malloc.locations.length, malloc.calls >= 3]).toEqual(['traced', 1, true]);
    expect(result.events.filter((e) => (e['args'] as string[])[0] === '0x40')).toHaveLength(3);
  });

  it('should trace past IFUNC imports within the deadline and name them', async () => {
    // Before, LLDB never came back from an IFUNC resolver and the call ended in provider_timeout.
    const result = await run<TraceResult>(observe, {
      executable: fixture('imports'),
      targets: ['strlen', 'strcpy', 'memcpy', 'malloc'].map((name) => ({ kind: 'import', name })),
      deadline_ms: 15_000,
    });
    expect([result.stopped_by, result.exit_code, result.stdout.text]).toEqual(['exit', 0, '15\n']);
    expect(result.targets.map((t) => [t.name, t.indirect_in])).toEqual([
      ['strlen', ['libc.so.6']],
      ['strcpy', ['libc.so.6']],
      ['memcpy', ['libc.so.6']],
      ['malloc', []],
    ]);
  });
});

describe('observe_native_calls with a Python that cannot load LLDB', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rea-lldb-python-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const expectUnavailable = async (variable: string, value: string) => {
    process.env[variable] = value;
    try {
      const error = await failure(observe, {
        executable: fixture('calls'),
        targets: [{ kind: 'function', name: 'traced' }],
      });
      expect([error.code, error.details['capability']]).toEqual(['capability_unavailable', 'native-call-tracing']);
      expect(error.remediation).toContain('python3-lldb-14');
    } finally {
      delete process.env[variable];
    }
  };

  it('should answer capability_unavailable when the interpreter is not a Python 3', async () => {
    await expectUnavailable('REA_LLDB_PYTHON', '/bin/false');
  });

  it('should answer capability_unavailable when the lldb found is not the module of LLDB', async () => {
    // An empty directory named lldb imports as a namespace package without SBDebugger.
    mkdirSync(join(dir, 'lldb'));
    await expectUnavailable('REA_LLDB_PYTHONPATH', dir);
  });
});

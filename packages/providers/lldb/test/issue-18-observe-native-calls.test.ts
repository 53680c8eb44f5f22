import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceResult } from '../src/trace/schema.js';
import { failure, fixture, observe, run } from './support.js';

jest.setTimeout(600_000);

describe('observe_native_calls', () => {
  it('should count every call, record arguments, bounded strings and return values by the ABI', async () => {
    const result = await run<TraceResult>(observe, {
      executable: fixture('calls'),
      args: ['300'],
      targets: [
        { kind: 'function', name: 'traced', arguments: 2, string_arguments: [1] },
        { kind: 'import', name: 'puts', arguments: 1, string_arguments: [0] },
        { kind: 'function', name: 'no_such_function' },
      ],
      returns: true,
      max_events: 3,
      max_string_bytes: 3,
    });
    expect(result.abi).toBe('x86-64-sysv');
    expect(result.targets.map((t) => [t.name, t.status, t.calls])).toEqual([
      ['traced', 'traced', 300],
      ['puts', 'traced', 1],
      ['no_such_function', 'not-found', 0],
    ]);
    // traced(i, "name") returns i + 1; the string is cut at 3 bytes.
    expect(
      result.events.map((e) => [
        (e['args'] as string[])[0],
        (e['strings'] as Record<string, string>)['1'],
        e['return'],
      ]),
    ).toEqual([
      ['0x0', 'nam', '0x1'],
      ['0x1', 'nam', '0x2'],
      ['0x2', 'nam', '0x3'],
    ]);
    expect([result.events_dropped, result.strings_cut, result.exit_code]).toEqual([298, 3, 0]);
    // 0 + 1 + ... + 299 plus one per call
    expect(result.stdout.text).toBe(`done\n${(299 * 300) / 2 + 300}\n`);
  });

  it('should report a crash with its signal and faulting address', async () => {
    const result = await run<TraceResult>(observe, {
      executable: fixture('crash'),
      targets: [{ kind: 'function', name: 'traced', arguments: 1 }],
    });
    expect(result.targets[0]!.calls).toBe(2);
    expect([result.stopped_by, result.crash?.['signal'], result.crash?.['fault_address'], result.exit_code]).toEqual([
      'crash',
      'SIGSEGV',
      '0x10',
      null,
    ]);
  });

  it('should trace a stripped program by address and state the missing symbol', async () => {
    const symbols = await run<TraceResult>(observe, {
      executable: fixture('calls'),
      args: ['5'],
      targets: [{ kind: 'function', name: 'traced' }],
    });
    const stripped = fixture('calls', ['-O1', '-s']);
    // The file address of traced in the stripped build: the same code, at the same file address.
    const runtime = BigInt(symbols.targets[0]!.locations[0]!);
    const fileAddress = `0x${(runtime - 0x555555554000n).toString(16)}`;
    const result = await run<TraceResult>(observe, {
      executable: stripped,
      args: ['5'],
      targets: [
        { kind: 'function', name: 'traced' },
        { kind: 'address', name: fileAddress },
      ],
    });
    expect(result.targets.map((t) => [t.status, t.calls])).toEqual([
      ['not-found', 0],
      ['traced', 5],
    ]);
  });

  it('should complete a 2,000-call trace from 8 threads 20 times with identical counts', async () => {
    const program = fixture('threads');
    const trace = async (): Promise<[number, number, string, number | null]> => {
      const result = await run<TraceResult>(observe, {
        executable: program,
        targets: [{ kind: 'function', name: 'traced', arguments: 1 }],
        max_events: 0,
      });
      return [result.targets[0]!.calls, result.events_dropped, result.stopped_by, result.exit_code];
    };
    // Two traces at a time, each its own call with its own LLDB: the runs must not disturb each other.
    const runs: Array<[number, number, string, number | null]> = [];
    for (let i = 0; i < 10; i++) runs.push(...(await Promise.all([trace(), trace()])));
    expect(runs).toEqual(Array.from({ length: 20 }, () => [2000, 2000, 'exit', 0]));
  });

  describe('without a working LLDB', () => {
    let dir = '';
    const saved = { ...process.env };
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'rea-lldb-env-'));
    });
    afterAll(() => {
      process.env = saved;
      rmSync(dir, { recursive: true, force: true });
    });

    it('should answer capability_unavailable with the remedy when the LLDB module is absent', async () => {
      process.env['REA_LLDB_PYTHONPATH'] = dir;
      try {
        const error = await failure(observe, {
          executable: fixture('calls'),
          targets: [{ kind: 'function', name: 'traced' }],
        });
        expect([error.code, error.details['capability']]).toEqual(['capability_unavailable', 'native-call-tracing']);
        expect(error.remediation).toContain('python3-lldb-14');
      } finally {
        delete process.env['REA_LLDB_PYTHONPATH'];
      }
    });

    it('should answer provider_timeout when LLDB hangs at startup, leaving no process', async () => {
      const hanging = join(dir, 'python-that-hangs');
      writeFileSync(hanging, '#!/bin/sh\nsleep 600\n');
      chmodSync(hanging, 0o755);
      process.env['REA_LLDB_PYTHON'] = hanging;
      process.env['REA_LLDB_STARTUP_TIMEOUT_MS'] = '500';
      try {
        const error = await failure(observe, {
          executable: fixture('calls'),
          targets: [{ kind: 'function', name: 'traced' }],
        });
        expect([error.code, error.details['phase'], error.details['deadline_ms']]).toEqual([
          'provider_timeout',
          'startup',
          500,
        ]);
      } finally {
        delete process.env['REA_LLDB_PYTHON'];
        delete process.env['REA_LLDB_STARTUP_TIMEOUT_MS'];
      }
    });
  });
});

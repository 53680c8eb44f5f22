// observe_native_calls attached to a process REA started (instead of launched under LLDB), wall-clock
// times on events, and progress while tracing.
import { describe, expect, it, jest } from '@jest/globals';
import { processAlive } from '@rea/test-helpers';
import type { TraceResult } from '../src/trace/schema.js';
import { failure, fixture, observe, run } from './support.js';

jest.setTimeout(300_000);

describe('observe_native_calls attached to a process REA started', () => {
  it('should trace only the calls after the attach, with wall-clock times, and leave no process', async () => {
    const messages: string[] = [];
    const before = Date.now();
    const result = await run<TraceResult>(
      observe,
      {
        executable: fixture('attach'),
        // The fixture calls traced() 5 times, prints "ready", waits for a tracer, then calls it 100 times.
        attach: { after_output: 'ready' },
        targets: [{ kind: 'function', name: 'traced', arguments: 1 }],
        returns: true,
        max_events: 2,
      },
      { progress: { report: (message: string) => messages.push(message) } },
    );
    const after = Date.now();
    expect(result.targets[0]!.calls).toBe(100);
    expect([result.exit_code, result.stopped_by, result.stdout.text]).toEqual([0, 'exit', 'ready\n5050\n']);
    expect(typeof result.attached_pid).toBe('number');
    expect(processAlive(result.attached_pid!)).toBe(false);
    // traced(i) returns i + 1: the first calls seen are those after the attach, i = 0 and 1 again.
    expect(result.events.map((e) => [(e['args'] as string[])[0], e['return']])).toEqual([
      ['0x0', '0x1'],
      ['0x1', '0x2'],
    ]);
    const started = Date.parse(result.started_at);
    expect(started).toBeGreaterThanOrEqual(before - 1000);
    for (const event of result.events) {
      const at = Date.parse(String(event['at']));
      expect(at).toBeGreaterThanOrEqual(started);
      expect(at).toBeLessThanOrEqual(after + 1000);
      // t_ms and at are one reading of the clock, each cut to whole milliseconds.
      expect(Math.abs(at - started - Number(event['t_ms']))).toBeLessThanOrEqual(1);
    }
    const phases = messages.map((m) => /^phase ([a-z]+)/u.exec(m)?.[1]);
    expect([...new Set(phases)]).toEqual(['startup', 'attaching', 'tracing']);
    const counts = messages.flatMap((m) => /; (\d+) calls$/u.exec(m)?.[1] ?? []).map(Number);
    counts.slice(1).forEach((count, i) => expect(count).toBeGreaterThanOrEqual(counts[i]!));
    // The agent reports the count as tracing ends, before its answer.
    expect(counts.at(-1)).toBe(100);
  });

  it('should fail with execution_failure, keeping the output, when the program exits before the pattern', async () => {
    const error = await failure(observe, {
      executable: fixture('calls'),
      args: ['3'],
      attach: { after_output: 'never printed' },
      targets: [{ kind: 'function', name: 'traced' }],
    });
    expect([error.code, error.details['reason'], error.details['phase']]).toEqual([
      'execution_failure',
      'exited-before-attach',
      'attach',
    ]);
    const partial = error.details['partial_observation'] as { stdout: { text: string } };
    expect(partial.stdout.text).toBe('done\n6\n');
  });

  it('should say how a program that exited before the pattern ended, as when LLDB attaches at once', async () => {
    const error = await failure(observe, {
      executable: fixture('status'),
      args: ['5'],
      attach: { after_output: 'never printed' },
      targets: [{ kind: 'function', name: 'main' }],
    });
    expect(error.details['reason']).toBe('exited-before-attach');
    expect(error.details['partial_observation']).toMatchObject({
      exit_code: 5,
      signal: null,
      stdout: { text: 'status 5\n' },
    });
  });

  it('should fail with exited-before-attach, not attach-failed, when the program exits at once', async () => {
    // No after_output: LLDB attaches as soon as REA has started the program, which has exited by then.
    const error = await failure(observe, {
      executable: '/usr/bin/true',
      attach: {},
      targets: [{ kind: 'import', name: 'exit' }],
    });
    expect([error.code, error.details['reason'], error.details['phase']]).toEqual([
      'execution_failure',
      'exited-before-attach',
      'attach',
    ]);
    expect(error.details['partial_observation']).toMatchObject({ exit_code: 0, signal: null, stdout: { text: '' } });
  });

  it('should refuse an after_output that is not a regular expression', async () => {
    const error = await failure(observe, {
      executable: fixture('attach'),
      attach: { after_output: '(' },
      targets: [{ kind: 'function', name: 'traced' }],
    });
    expect([error.code, error.details['reason']]).toEqual(['invalid_request', 'invalid-pattern']);
  });
});

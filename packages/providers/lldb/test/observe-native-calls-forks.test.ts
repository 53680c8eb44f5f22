// observe_native_calls of a program that forks: LLDB follows the parent only, which the Evidence states.
import { describe, expect, it, jest } from '@jest/globals';
import { executeTool } from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';
import type { TraceResult } from '../src/trace/schema.js';
import { fixture, observe } from './support.js';

jest.setTimeout(300_000);

describe('observe_native_calls of a program that forks', () => {
  it('should count the parent calls only, state that the child calls were not traced, and let the child run', async () => {
    const outcome = await executeTool(
      observe,
      { executable: fixture('traced_fork'), targets: [{ kind: 'function', name: 'traced' }] },
      quietToolContext(),
    );
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    const result = outcome.record.normalized_result as unknown as TraceResult;
    // The parent calls traced() twice, the child five times.
    expect([result.targets[0]!.calls, result.forks, result.exit_code]).toEqual([2, 1, 0]);
    // The child ran its calls without the parent's breakpoints, each returning what it should.
    expect(result.stdout.text).toBe('child exited 0\n');
    expect(outcome.record.limitations.map((l) => l.kind)).toEqual(['forked']);
    expect(outcome.record.coverage).toMatchObject({ status: 'partial', reasons: ['forked'] });
  });
});

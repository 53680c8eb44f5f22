import { expect, jest } from '@jest/globals';

jest.setTimeout(300_000);

/** A capture of cat echoing `text`, as inline Evidence. */
async function cat(text: string, runTool: CapabilityCheckContext['runTool']): Promise<unknown> {
  const outcome = await runTool('capture_process_scenario', {
    executable: '/bin/cat',
    actions: [{ type: 'write_stdin', data: text }, { type: 'close_stdin' }],
    deadline_ms: 60_000,
  });
  if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
  return outcome.record;
}
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import { toolsMissing } from '@rea/test-helpers';
import { createLldbProvider } from '@rea/provider-lldb';

describeProviderContract('lldb', () => createLldbProvider(), {
  skipReason: toolsMissing('python3'),
  // The comparison's example names retained captures: compare two real captures inline instead.
  exampleInput: async (tool, input, { runTool }) => {
    if (tool !== 'compare_process_captures') return input;
    // One after the other: each call is checked against the process table for what it left running, and
    // a capture still running beside it would be counted as left behind by the other.
    const left = await cat('one\n', runTool);
    const right = await cat('two\n', runTool);
    return { left, right };
  },
  capabilityProbes: {
    'process-capture-comparison': async ({ runTool }) => {
      const [left, right] = [await cat('pid 1\n', runTool), await cat('pid 2\n', runTool)];
      const outcome = await runTool('compare_process_captures', { left, right });
      expect(outcome).toMatchObject({
        kind: 'evidence',
        record: { normalized_result: { equal: true, differences: [] } },
      });
      const raw = await runTool('compare_process_captures', { left, right, normalize: [] });
      expect(raw).toMatchObject({
        record: {
          normalized_result: { equal: false, differences: [{ field: 'stdout', left: 'pid 1\n', right: 'pid 2\n' }] },
        },
      });
    },
    'native-call-tracing': async ({ runTool }) => {
      const outcome = await runTool('observe_native_calls', {
        executable: '/usr/bin/true',
        targets: [{ kind: 'import', name: 'exit', arguments: 1 }],
        deadline_ms: 120_000,
      });
      expect(outcome).toMatchObject({
        kind: 'evidence',
        record: {
          normalized_result: { exit_code: 0, targets: [{ name: 'exit', calls: 1 }], events: [{ args: ['0x0'] }] },
        },
      });
    },
    'process-capture': async ({ runTool, lastCallLineage }) => {
      const outcome = await runTool('capture_process_scenario', {
        executable: '/bin/cat',
        actions: [{ type: 'write_stdin', data: 'x\n' }, { type: 'close_stdin' }],
        deadline_ms: 60_000,
      });
      expect(outcome).toMatchObject({ kind: 'evidence', record: { normalized_result: { exit_code: 0 } } });
      const lineage = lastCallLineage();
      expect(lineage).toHaveLength(1);
      if (lineage[0]!.status === 'verified')
        expect(lineage[0]).toMatchObject({ launcher_alive: false, descendants: [] });
    },
  },
});

import { expect, jest } from '@jest/globals';

jest.setTimeout(300_000);
import { describeProviderContract } from '@rea/contract-tests';
import { toolsMissing } from '@rea/test-helpers';
import { createLldbProvider } from '@rea/provider-lldb';

describeProviderContract('lldb', () => createLldbProvider(), {
  skipReason: toolsMissing('python3'),
  capabilityProbes: {
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

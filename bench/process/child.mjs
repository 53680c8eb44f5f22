// One measured REA call in a fresh Node process (start-up counted, as for every other contender).
// Usage: node child.mjs trace <program> <function> <calls> | node child.mjs capture <program> [args ...]
// Prints the call count (trace) or the program's stdout (capture) on its last line.
import { executeTool, createCallSupervisor } from '@rea/provider-kit';
import { lldbTools } from '@rea/provider-lldb';

const [mode, program, ...rest] = process.argv.slice(2);
const noop = () => undefined;
const context = {
  session: { target: null, binding: null, run_id: null },
  platform: process.platform,
  signal: new AbortController().signal,
  progress: { report: noop },
  logger: { debug: noop, info: noop, warn: noop, error: noop },
  ledger: null,
  clientFeatures: new Set(),
  supervisor: createCallSupervisor(),
};
const tool = (name) => lldbTools.find((t) => t.name === name);
if (mode === 'trace') {
  const [name, calls] = rest;
  const input = {
    executable: program,
    args: [calls],
    targets: [{ kind: 'function', name }],
    max_events: 0,
    deadline_ms: 3_600_000,
  };
  const outcome = await executeTool(tool('observe_native_calls'), input, context);
  process.stdout.write(`${outcome.record.normalized_result.targets[0].calls}\n`);
} else {
  const input = { executable: program, args: rest, deadline_ms: 60_000 };
  const outcome = await executeTool(tool('capture_process_scenario'), input, context);
  process.stdout.write(outcome.record.normalized_result.stdout.text);
}

import type { JsonObject, Limitation } from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { CaptureInputSchema, CaptureResultSchema } from '../capture/schema.js';
import { checkActions, runScenario } from '../capture/scenario.js';
import { checkExecutable, checkWorkingDirectory } from '../executable.js';
import { LLDB_PROVIDER, lldbProfile } from '../version.js';
import { RUNS_FOREIGN_CODE, lldbSettings } from './common.js';

/** `capture_process_scenario`: runs a declared scenario under REA's ownership and records what happened. */
export const captureProcessScenarioTool = defineTool({
  name: 'capture_process_scenario',
  title: 'Capture process scenario',
  description:
    'Runs a program in its own process group (optionally on a pseudo-terminal) through declared actions: write_stdin, wait_for_output, wait, signal, resize, close_stdin; then waits for exit until deadline_ms and cleans up (signal, grace, SIGKILL). Returns each action outcome and timing, stdout/stderr or the pty transcript and final screen, exit code or signal, every signal attempt, descendants seen. Budgets cut output as limitations.',
  input: CaptureInputSchema,
  result: CaptureResultSchema,
  examples: [
    {
      input: {
        executable: '/bin/cat',
        actions: [
          { type: 'write_stdin', data: 'hello\n' },
          { type: 'wait_for_output', pattern: 'hello', stream: 'stdout', timeout_ms: 5000 },
          { type: 'close_stdin' },
        ],
        deadline_ms: 10000,
      },
      description: 'Echo through cat and wait for the echo.',
    },
  ],
  effects: RUNS_FOREIGN_CODE,
  produces: 'evidence',
  async run(input, context) {
    const executable = await checkExecutable(input.executable);
    await checkWorkingDirectory(input.cwd);
    checkActions(input);
    const python = lldbSettings().lldbPython ?? 'python3';
    const result = await runScenario(input, python, context);
    const limitations: Limitation[] = [];
    for (const [name, stream] of [
      ['stdout', result.stdout],
      ['stderr', result.stderr],
      ['transcript', result.transcript],
    ] as const) {
      if (stream?.truncated) {
        limitations.push({
          kind: 'output-budget',
          message: `${name}: ${stream.bytes} bytes produced, the first ${input.max_output_bytes} kept.`,
          scope: name,
        });
      }
    }
    if (result.deadline_reached) {
      limitations.push({ kind: 'deadline', message: `The scenario reached its deadline of ${input.deadline_ms} ms.` });
    }
    if (result.screen !== null) {
      limitations.push({
        kind: 'screen-model',
        message: 'The final screen is a VT100 subset model: colours and attributes are not kept.',
      });
    }
    const { executable: _path, ...parameters } = input;
    return {
      subject: executable.subject,
      provider: LLDB_PROVIDER,
      analysis_profile: lldbProfile('process-capture', { max_output_bytes: input.max_output_bytes }),
      parameters: JSON.parse(
        JSON.stringify({ ...parameters, executable_name: input.executable.split('/').pop() ?? '' }),
      ) as JsonObject,
      normalized_result: result,
      raw_result: null,
      confidence: 'observed' as const,
      limitations,
      coverage: limitations.some((l) => l.kind !== 'screen-model')
        ? {
            status: 'partial' as const,
            reasons: limitations.filter((l) => l.kind !== 'screen-model').map((l) => l.kind),
          }
        : { status: 'complete' as const, reasons: [] },
      locations: [],
      evidence_links: [],
      local: { executable: input.executable },
    };
  },
});

import { ReaError } from '@rea/evidence';
import type { JsonObject, Limitation } from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { checkExecutable, checkWorkingDirectory } from '../executable.js';
import { traceCalls } from '../trace/agent.js';
import { TraceInputSchema, TraceResultSchema } from '../trace/schema.js';
import { LLDB_PROVIDER, lldbProfile } from '../version.js';
import { RUNS_FOREIGN_CODE, lldbSettings } from './common.js';

/** SIGKILL's number on Linux. */
const SIGKILL_NUMBER = 9;

/** `observe_native_calls`: launches a program under LLDB and traces calls to named functions, imports, addresses. */
export const observeNativeCallsTool = defineTool({
  name: 'observe_native_calls',
  title: 'Observe native calls',
  description:
    'Launches a program under LLDB (Python API, an owned process) and traces calls to functions, imports or 0x file addresses: exact call counts, and per event (up to max_events) thread, arguments by the ABI (x86-64 System V, AArch64), bounded C strings, return values, backtrace. Reports the exit code, or the signal that ended the program (with pc and fault address); handled signals are delivered. Imports break at symbol entry points; IFUNCs are limitations. Only the launched process is traced: calls in forked children are not counted (forks are counted and stated). attach: REA starts the program and LLDB attaches to its PID. Missing symbols are per-target limitations.',
  input: TraceInputSchema,
  result: TraceResultSchema,
  examples: [
    {
      input: {
        executable: '/usr/bin/true',
        targets: [{ kind: 'import', name: 'exit', arguments: 1, string_arguments: [] }],
        deadline_ms: 60000,
      },
      description: 'Count calls to exit() and record its status argument.',
    },
  ],
  effects: RUNS_FOREIGN_CODE,
  produces: 'evidence',
  async run(input, context) {
    const executable = await checkExecutable(input.executable);
    if (executable.kind === 'script') {
      throw new ReaError('invalid_request', 'observe_native_calls traces native executables, not scripts.', {
        remediation: 'Pass the interpreter as the executable and the script as an argument.',
        details: { reason: 'script', path: input.executable },
      });
    }
    await checkWorkingDirectory(input.cwd);
    for (const [index, target] of input.targets.entries()) {
      if (target.kind === 'address' && !/^0x[0-9a-f]+$/.test(target.name)) {
        throw new ReaError('invalid_request', `targets[${index}].name must be a lowercase 0x address.`, {
          details: { reason: 'invalid-address', issues: [{ path: `targets.${index}.name`, message: 'not 0x hex' }] },
        });
      }
    }
    if (input.attach?.after_output !== undefined) {
      try {
        new RegExp(input.attach.after_output, 'u');
      } catch (error) {
        throw new ReaError(
          'invalid_request',
          `attach.after_output is not a regular expression: ${(error as Error).message}`,
          {
            details: {
              reason: 'invalid-pattern',
              issues: [{ path: 'attach.after_output', message: 'not a regular expression' }],
            },
          },
        );
      }
    }
    const settings = lldbSettings();
    const result = await traceCalls(
      input,
      {
        python: settings.lldbPython ?? 'python3',
        pythonPath: settings.lldbPythonPath,
        startupTimeoutMs: settings.lldbStartupTimeoutMs,
      },
      context,
    );
    const limitations: Limitation[] = [];
    for (const target of result.targets) {
      if (target.status === 'not-found') {
        limitations.push({
          kind: 'symbol-not-found',
          message: `${target.kind} ${target.name} was not found (stripped, not loaded, or misspelt): not traced.`,
          scope: target.name,
        });
      }
    }
    for (const target of result.targets) {
      if (target.indirect_in.length > 0) {
        limitations.push({
          kind: 'indirect-function',
          message: `${target.name} is an IFUNC in ${target.indirect_in.join(', ')}: the implementation chosen at run time is not traced.`,
          scope: target.name,
        });
      }
    }
    if (result.events_dropped > 0) {
      limitations.push({
        kind: 'event-bound',
        message: `${result.events_dropped} calls were counted without details (max_events or max_event_bytes).`,
      });
    }
    if (result.strings_cut > 0) {
      limitations.push({
        kind: 'string-bound',
        message: `${result.strings_cut} strings cut at ${input.max_string_bytes} bytes.`,
      });
    }
    if (result.forks > 0) {
      limitations.push({
        kind: 'forked',
        message: `The program called fork() or vfork() ${result.forks} time${result.forks === 1 ? '' : 's'}: calls made in the child processes were not traced.`,
      });
    }
    if (result.attached_pid !== null) {
      limitations.push({
        kind: 'attached',
        message: `LLDB attached to process ${result.attached_pid} after it started: earlier calls were not seen.`,
      });
    }
    if (result.emulator !== null) {
      limitations.push({
        kind: 'emulated',
        message: `The program ran under ${result.emulator} (user-mode emulation), not on this host's CPU.`,
      });
    }
    if (result.stopped_by === 'exit' && result.exit_code === SIGKILL_NUMBER) {
      // SIGKILL cannot be stopped at, and LLDB 14 reports an end by it as the exit status 9.
      limitations.push({
        kind: 'exit-or-sigkill',
        message:
          'Exit status 9 is also how LLDB reports a program ended by SIGKILL (which cannot be stopped at): the program either exited with status 9 or was killed.',
      });
    }
    if (result.stopped_by === 'deadline') {
      limitations.push({ kind: 'deadline', message: `Tracing stopped at the deadline of ${input.deadline_ms} ms.` });
    }
    const { executable: _path, ...parameters } = input;
    return {
      subject: executable.subject,
      provider: LLDB_PROVIDER,
      analysis_profile: lldbProfile('native-calls', { abi: result.abi }),
      parameters: JSON.parse(JSON.stringify(parameters)) as JsonObject,
      normalized_result: result,
      raw_result: null,
      confidence: 'observed' as const,
      limitations,
      coverage:
        limitations.length > 0
          ? { status: 'partial' as const, reasons: limitations.map((l) => l.kind) }
          : { status: 'complete' as const, reasons: [] },
      locations: [],
      evidence_links: [],
      local: { executable: input.executable },
    };
  },
});

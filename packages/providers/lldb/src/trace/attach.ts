import { ReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import type { OwnedProcess, ToolContext } from '@rea/provider-kit';
import { OutputCollector } from '../capture/output.js';
import type { TraceInput } from './schema.js';

/** Output kept per stream of an attached program. */
export const OUTPUT_KEEP = 65_536;

/** A program REA started for LLDB to attach to, with its output collected. */
export interface AttachTarget {
  owned: OwnedProcess;
  stdout: OutputCollector;
  stderr: OutputCollector;
  /** Settles when both output streams have ended. */
  streams: Promise<void>;
}

/**
 * Starts the program of `input` (or the `launcher` that runs it, an emulator) through the call's
 * supervisor (its own process group, stdin closed, output collected), the only kind of process LLDB is
 * ever attached or connected to, and resolves once it may be attached: at once, or when stdout matches
 * `attach.after_output`. The program exiting first, the trace deadline or a cancellation fails the call
 * (`execution_failure`, `provider_timeout`, `cancelled`), the output so far in
 * `details.partial_observation`.
 */
export async function startForAttach(
  input: TraceInput,
  context: ToolContext,
  deadlineMs: number,
  launcher: { command: string; args: readonly string[] } = { command: input.executable, args: input.args },
): Promise<AttachTarget> {
  const owned = await context.supervisor.start(launcher.command, launcher.args, {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: input.env,
    ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
  });
  const stdout = new OutputCollector(OUTPUT_KEEP);
  const stderr = new OutputCollector(OUTPUT_KEEP);
  const streams = Promise.all([stdout.attach(owned.stdout), stderr.attach(owned.stderr)]).then(() => undefined);
  const target = { owned, stdout, stderr, streams };
  const pattern = input.attach?.after_output;
  if (pattern === undefined) return target;
  const regex = new RegExp(pattern, 'u');
  const partial = () => ({
    partial_observation: { stdout: stdout.result(), stderr: stderr.result(), coverage: 'none' },
  });
  let stop = () => undefined as void;
  const outcome = await new Promise<'matched' | 'exited' | 'deadline' | 'aborted'>((resolve) => {
    if (stdout.consume(regex)) return resolve('matched');
    const unlisten = stdout.listen(() => stdout.consume(regex) && resolve('matched'));
    const timer = setTimeout(() => resolve('deadline'), deadlineMs);
    const onAbort = () => resolve('aborted');
    context.signal.addEventListener('abort', onAbort, { once: true });
    // Output written just before the exit still counts.
    void owned.exited.then(() => streams).then(() => resolve(stdout.consume(regex) ? 'matched' : 'exited'));
    stop = () => {
      unlisten();
      clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
    };
  });
  stop();
  if (outcome === 'matched' && owned.exit() === null) return target;
  if (outcome === 'aborted') {
    throw new ReaError('cancelled', 'The trace was cancelled before LLDB attached.', {
      details: { phase: 'attach', ...partial() },
    });
  }
  if (outcome === 'deadline') {
    throw new ReaError('provider_timeout', `The program did not print /${pattern}/ within ${deadlineMs} ms.`, {
      remediation: 'Check attach.after_output against what the program prints, or raise deadline_ms.',
      details: { provider_id: 'lldb', deadline_ms: deadlineMs, phase: 'attach', ...partial() },
    });
  }
  const exit = owned.exit() ?? (await owned.exited);
  throw exitedBeforeAttach(input.executable, {
    stdout: stdout.result(),
    stderr: stderr.result(),
    exit_code: exit.exitCode,
    signal: exit.signal,
  });
}

/**
 * `execution_failure` (`exited-before-attach`) for a program REA started that exited before LLDB was
 * attached to it, its output (and, where known, its exit) in `details.partial_observation`.
 */
export function exitedBeforeAttach(executable: string, seen: JsonObject): ReaError {
  return new ReaError('execution_failure', `${executable} exited before LLDB could attach.`, {
    remediation: 'Attach to a program that keeps running after attach.after_output appears, or trace it from launch.',
    details: {
      provider_id: 'lldb',
      reason: 'exited-before-attach',
      phase: 'attach',
      partial_observation: { ...seen, coverage: 'none' },
    },
  });
}

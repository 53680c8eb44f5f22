import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ReaError, isReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import { LLDB_AGENT } from './agentSource.js';
import { OUTPUT_KEEP, exitedBeforeAttach, startForAttach } from './attach.js';
import type { AttachTarget } from './attach.js';
import { emulationFor } from './emulator.js';
import type { TraceInput, TraceResult } from './schema.js';

/** How long the output of an attached program may take to end after its exit. */
const STREAM_WAIT_MS = 1000;
/** How long after a failed attach the program's exit may take to be seen. */
const EXIT_WAIT_MS = 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
/**
 * How long the agent may stay silent once the trace deadline has passed: its loop reports twice a
 * second and answers as soon as the program is killed, so silence this long is LLDB hanging.
 */
const ANSWER_GRACE_MS = 5000;
/** How long a cancelled trace waits for the agent's last count before it fails with the one before. */
const CANCEL_WAIT_MS = 2000;

const REMEDY =
  'Install LLDB with its Python module (Debian: apt-get install lldb python3-lldb-14), or set REA_LLDB_PYTHONPATH to the directory holding the lldb module (what `lldb -P` prints).';

async function readKept(path: string): Promise<TraceResult['stdout']> {
  const bytes = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  const handle = await open(path, 'r').catch(() => null);
  if (handle === null) return { text: '', bytes: 0, truncated: false };
  try {
    const buffer = Buffer.alloc(Math.min(bytes, OUTPUT_KEEP));
    await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.toString('utf8'), bytes, truncated: bytes > OUTPUT_KEEP };
  } finally {
    await handle.close();
  }
}

interface Settings {
  python: string;
  pythonPath: string | null;
  startupTimeoutMs: number;
}

/**
 * Runs one trace through the LLDB agent, an owned process of this call. `capability_unavailable` when
 * Python or LLDB's module is missing; `provider_timeout` when LLDB does not load within the startup
 * deadline, or (`reason: "lldb-unresponsive"`, after killing the agent and the program) stays silent
 * for {@link ANSWER_GRACE_MS} past the trace deadline; `cancelled` on abort, once the agent has
 * reported its count as it stops (or {@link CANCEL_WAIT_MS} passed); `execution_failure`
 * (`exited-before-attach`) when the program REA started for an attach is gone when LLDB attaches.
 * Failures after tracing began keep the calls counted so far (in all and per target) and the time
 * elapsed since the call began in `details.partial_observation`.
 */
export async function traceCalls(input: TraceInput, settings: Settings, context: ToolContext): Promise<TraceResult> {
  const { supervisor, signal } = context;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  context.progress.report('phase startup; elapsed 0 ms', 'startup');
  const emulation = await emulationFor(input.executable, input.args, input.attach !== undefined);
  const dir = await supervisor.createTempDir('lldb');
  const agent = await supervisor
    .start(settings.python, ['-u', '-c', LLDB_AGENT], { stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
    .catch((error: unknown) => {
      if (isReaError(error) && error.code === 'execution_failure') {
        throw new ReaError(
          'capability_unavailable',
          `LLDB tracing needs Python 3 (${settings.python}), which could not start.`,
          {
            remediation: `Install python3 or set REA_LLDB_PYTHON. ${REMEDY}`,
            details: {
              capability: 'native-call-tracing',
              provider_id: 'lldb',
              reason: String(error.details['reason']),
            },
          },
        );
      }
      throw error;
    });
  agent.stdin?.on('error', () => undefined);
  const request = {
    executable: input.executable,
    args: input.args,
    env: input.env,
    cwd: input.cwd ?? null,
    targets: input.targets,
    returns: input.returns,
    backtrace_depth: input.backtrace_depth,
    max_events: input.max_events,
    max_string_bytes: input.max_string_bytes,
    max_event_bytes: input.max_event_bytes,
    deadline_ms: input.deadline_ms,
    attach: input.attach !== undefined || emulation !== null,
    pythonpath: settings.pythonPath,
    stdout_path: join(dir, 'stdout'),
    stderr_path: join(dir, 'stderr'),
  };
  agent.stdin?.write(`${JSON.stringify(request)}\n`);
  // The last counts the agent reported: in all, and per target.
  let progress: { calls: number; targets: number[] } = { calls: 0, targets: [] };
  let onLine: (line: JsonObject) => void = () => undefined;
  let buffered = '';
  let lastOutput = performance.now();
  let attached: AttachTarget | null = null;
  agent.stdout?.on('data', (chunk: Buffer) => {
    lastOutput = performance.now();
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        onLine(JSON.parse(text) as JsonObject);
      } catch {
        // Not a protocol line (LLDB printed something): ignore it.
      }
    }
  });
  /** The end of what the agent wrote on stderr, as the tail of a sentence (empty when it wrote nothing). */
  const agentSaid = () => {
    const tail = agent.stderrTail().trim().slice(-500);
    return tail === '' ? '.' : `: ${tail}`;
  };
  const partial = () => ({
    partial_observation: {
      calls: progress.calls,
      targets: input.targets.map((t, i) => ({ kind: t.kind, name: t.name, calls: progress.targets[i] ?? 0 })),
      elapsed_ms: elapsed(),
      coverage: 'partial',
    },
  });
  /** Kills the agent (LLDB and the program it runs) and an attached program, then fails with what was seen. */
  const unresponsive = async (): Promise<ReaError> => {
    const seen = partial().partial_observation;
    await Promise.allSettled([agent.terminate({ graceMs: 0 }), attached?.owned.terminate({ graceMs: 0 })]);
    const output =
      attached === null
        ? { stdout: await readKept(request.stdout_path), stderr: await readKept(request.stderr_path) }
        : { stdout: attached.stdout.result(), stderr: attached.stderr.result() };
    return new ReaError(
      'provider_timeout',
      `LLDB stopped answering: nothing came from it for ${ANSWER_GRACE_MS} ms after the trace deadline of ${input.deadline_ms} ms, so it and the program were killed.`,
      {
        remediation:
          'Trace fewer or other functions (an import LLDB resolves by calling into the program can hang it), or raise deadline_ms.',
        details: {
          provider_id: 'lldb',
          reason: 'lldb-unresponsive',
          deadline_ms: input.deadline_ms,
          grace_ms: ANSWER_GRACE_MS,
          phase: 'tracing',
          partial_observation: { ...seen, ...output },
        },
      },
    );
  };
  /**
   * The agent's next line of one of `types`. `limit` is the startup deadline, or the moment the trace
   * deadline passes: from then on the agent must keep answering (its loop reports twice a second, its
   * answer follows at once), and silence for {@link ANSWER_GRACE_MS} is LLDB hanging.
   */
  const next = (types: string[], phase: string, limit: { ms: number; setting: string } | { deadlineAt: number }) =>
    new Promise<JsonObject>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      let stopped: (() => void) | null = null;
      const settle = (action: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        action();
      };
      if ('ms' in limit) {
        timer = setTimeout(
          () =>
            settle(() =>
              reject(
                new ReaError('provider_timeout', `LLDB did not answer within ${limit.ms} ms (${phase}).`, {
                  remediation: `Raise ${limit.setting}, or check that LLDB starts on this host.`,
                  details: { provider_id: 'lldb', deadline_ms: limit.ms, phase, ...partial() },
                }),
              ),
            ),
          limit.ms,
        );
      } else {
        const watch = () => {
          const now = performance.now();
          const silentUntil = Math.max(limit.deadlineAt, lastOutput) + ANSWER_GRACE_MS;
          if (now < silentUntil) {
            timer = setTimeout(watch, silentUntil - now);
            return;
          }
          settled = true;
          signal.removeEventListener('abort', onAbort);
          void unresponsive().then(reject);
        };
        timer = setTimeout(watch, Math.max(0, limit.deadlineAt - performance.now()));
      }
      const cancelled = () =>
        settle(() =>
          reject(new ReaError('cancelled', 'The trace was cancelled.', { details: { phase, ...partial() } })),
        );
      function onAbort() {
        if (phase !== 'tracing') return cancelled();
        // Ask the agent for its count as it stops (it looks between stops, at least once a second).
        agent.stdin?.write(`${JSON.stringify({ stop: 'cancel' })}\n`);
        stopped = cancelled;
        void Promise.race([agent.exited, sleep(CANCEL_WAIT_MS)]).then(cancelled);
      }
      signal.addEventListener('abort', onAbort, { once: true });
      void agent.exited.then((exit) =>
        setTimeout(() => {
          if (signal.aborted) return cancelled();
          settle(() =>
            reject(
              phase === 'startup'
                ? // Python ran no agent (not Python 3, or not a Python at all): LLDB's module is not usable.
                  new ReaError(
                    'capability_unavailable',
                    `LLDB tracing needs Python 3 with LLDB's module; ${settings.python} exited before loading it: ${agent.stderrTail().slice(-300)}`,
                    {
                      remediation: `Set REA_LLDB_PYTHON to the python3 that LLDB's module was built for. ${REMEDY}`,
                      details: { capability: 'native-call-tracing', provider_id: 'lldb', reason: 'python-unusable' },
                    },
                  )
                : new ReaError(
                    'execution_failure',
                    `The LLDB agent ${exit.signal === null ? `exited (status ${String(exit.exitCode)})` : `was ended by ${exit.signal}`} during ${phase}${agentSaid()}`,
                    {
                      remediation:
                        'Run the call again; if it keeps failing, trace fewer targets or check that LLDB debugs this program on the command line.',
                      details: {
                        provider_id: 'lldb',
                        phase,
                        exit_code: exit.exitCode,
                        signal: exit.signal,
                        ...partial(),
                      },
                    },
                  ),
            ),
          );
        }, 200),
      );
      onLine = (line) => {
        if (line['type'] === 'progress') {
          const targets = Array.isArray(line['targets']) ? line['targets'].map(Number) : progress.targets;
          progress = { calls: Number(line['calls'] ?? 0), targets };
          context.progress.report(`phase tracing; elapsed ${elapsed()} ms; ${String(line['calls'])} calls`, 'tracing');
          stopped?.();
        }
        if (types.includes(String(line['type']))) settle(() => resolve(line));
      };
    });
  const ready = await next(['ready', 'error'], 'startup', {
    ms: settings.startupTimeoutMs,
    setting: 'REA_LLDB_STARTUP_TIMEOUT_MS',
  });
  // The agent's trace deadline runs from its answer.
  const deadlineAt = performance.now() + input.deadline_ms;
  if (ready['type'] === 'error') {
    throw new ReaError(
      'capability_unavailable',
      `LLDB's Python module could not be loaded: ${String(ready['message'])}`,
      {
        remediation: REMEDY,
        details: { capability: 'native-call-tracing', provider_id: 'lldb', reason: String(ready['reason']) },
      },
    );
  }
  if (emulation !== null) {
    context.progress.report(`phase starting ${emulation.command}; elapsed ${elapsed()} ms`, 'starting');
    attached = await startForAttach(input, context, input.deadline_ms, emulation);
    agent.stdin?.write(`${JSON.stringify({ connect: emulation.connect })}\n`);
  } else if (input.attach !== undefined) {
    context.progress.report(`phase attaching; elapsed ${elapsed()} ms`, 'attaching');
    attached = await startForAttach(input, context, input.deadline_ms);
    // Unreaped, so its PID cannot have been reused: the process LLDB attaches to is the one REA started.
    agent.stdin?.write(`${JSON.stringify({ attach_pid: attached.owned.identity.pid })}\n`);
  }
  context.progress.report(`phase tracing; elapsed ${elapsed()} ms; 0 calls`, 'tracing');
  const answer = await next(['result', 'error'], 'tracing', { deadlineAt });
  if (answer['type'] === 'error') {
    if (answer['reason'] === 'attach-failed' && attached !== null) {
      // A program that exits at once leaves LLDB a PID without a process ("Cannot get process
      // architecture"): whether it is gone, not what LLDB says, tells that case apart.
      const target = attached;
      const exit = await Promise.race([target.owned.exited, sleep(EXIT_WAIT_MS).then(() => null)]);
      if (exit !== null) {
        await Promise.race([target.streams, sleep(STREAM_WAIT_MS)]);
        throw exitedBeforeAttach(input.executable, {
          stdout: target.stdout.result(),
          stderr: target.stderr.result(),
          exit_code: exit.exitCode,
          signal: exit.signal,
        });
      }
    }
    throw new ReaError('execution_failure', `LLDB could not trace ${input.executable}: ${String(answer['message'])}`, {
      remediation: 'Check that the program runs on this host and that LLDB may debug it (ptrace permissions).',
      details: { provider_id: 'lldb', reason: String(answer['reason']), ...partial() },
    });
  }
  const { type: _type, lldb_version: _version, ...result } = answer;
  const observed = result as unknown as Omit<TraceResult, 'stdout' | 'stderr' | 'attached_pid' | 'emulator'>;
  if (attached !== null) {
    const target = attached;
    await Promise.race([target.owned.exited.then(() => target.streams), sleep(STREAM_WAIT_MS)]);
    return {
      ...observed,
      attached_pid: emulation === null ? target.owned.identity.pid : null,
      emulator: emulation === null ? null : emulation.command,
      stdout: target.stdout.result(),
      stderr: target.stderr.result(),
    };
  }
  return {
    ...observed,
    attached_pid: null,
    emulator: null,
    stdout: await readKept(request.stdout_path),
    stderr: await readKept(request.stderr_path),
  };
}

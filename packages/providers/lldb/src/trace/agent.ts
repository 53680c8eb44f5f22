import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ReaError, isReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import { LLDB_AGENT } from './agentSource.js';
import { OUTPUT_KEEP, startForAttach } from './attach.js';
import type { AttachTarget } from './attach.js';
import { emulationFor } from './emulator.js';
import type { TraceInput, TraceResult } from './schema.js';

/** How long the output of an attached program may take to end after its exit. */
const STREAM_WAIT_MS = 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
/** Time the agent has after the trace deadline to kill the target and answer. */
const ANSWER_GRACE_MS = 15_000;

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
 * deadline or does not answer after the trace deadline; `cancelled` on abort. Failures after tracing
 * began keep the last progress in `details.partial_observation`.
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
  let progress: JsonObject = { calls: 0, elapsed_ms: 0 };
  let onLine: (line: JsonObject) => void = () => undefined;
  let buffered = '';
  agent.stdout?.on('data', (chunk: Buffer) => {
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
  const partial = () => ({ partial_observation: { ...progress, coverage: 'partial' } });
  const next = (types: string[], ms: number, phase: string, setting?: string) =>
    new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new ReaError('provider_timeout', `LLDB did not answer within ${ms} ms (${phase}).`, {
            remediation: setting
              ? `Raise ${setting}, or check that LLDB starts on this host.`
              : 'Raise deadline_ms, or trace fewer calls.',
            details: { provider_id: 'lldb', deadline_ms: ms, phase, ...partial() },
          }),
        );
      }, ms);
      const onAbort = () =>
        reject(new ReaError('cancelled', 'The trace was cancelled.', { details: { phase, ...partial() } }));
      signal.addEventListener('abort', onAbort, { once: true });
      void agent.exited.then(() =>
        setTimeout(
          () =>
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
                    `The LLDB agent exited during ${phase}: ${agent.stderrTail().slice(-500)}`,
                    {
                      details: { provider_id: 'lldb', phase, ...partial() },
                    },
                  ),
            ),
          200,
        ),
      );
      onLine = (line) => {
        if (line['type'] === 'progress') {
          progress = { calls: line['calls'] ?? 0, elapsed_ms: line['elapsed_ms'] ?? 0 };
          context.progress.report(`phase tracing; elapsed ${elapsed()} ms; ${String(line['calls'])} calls`, 'tracing');
        }
        if (types.includes(String(line['type']))) {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(line);
        }
      };
    });
  const ready = await next(['ready', 'error'], settings.startupTimeoutMs, 'startup', 'REA_LLDB_STARTUP_TIMEOUT_MS');
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
  let attached: AttachTarget | null = null;
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
  const answer = await next(['result', 'error'], input.deadline_ms + ANSWER_GRACE_MS, 'tracing');
  if (answer['type'] === 'error') {
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

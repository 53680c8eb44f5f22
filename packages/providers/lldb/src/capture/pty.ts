import { ReaError, isReaError } from '@rea/evidence';
import type { OwnedProcess, ProcessSupervisor } from '@rea/provider-kit';
import { constants } from 'node:os';
import { PTY_HELPER } from './ptyHelper.js';
import type { CaptureInput, SignalAttempt } from './schema.js';

/** A target running on a pseudo-terminal behind the helper, which REA owns. */
export interface PtySession {
  /** The helper; the target is its child (a descendant REA proves it owns). */
  owned: OwnedProcess;
  /** The target's exit as the helper reported it (signal as a number). */
  exited: Promise<{ exitCode: number | null; signal: number | string | null }>;
  write(text: string): void;
  eof(): void;
  resize(columns: number, rows: number): void;
  signal(name: NodeJS.Signals, atMs: number): Promise<SignalAttempt>;
}

/** `capability_unavailable` for a PTY scenario on a host without Python 3. */
function noPython(python: string, reason: string): ReaError {
  return new ReaError('capability_unavailable', `A pty scenario needs Python 3 (${python}): ${reason}.`, {
    remediation:
      'Install python3 (Debian: apt-get install python3), set REA_LLDB_PYTHON to it, or run with pty: false.',
    details: { capability: 'pty', provider_id: 'lldb', reason },
  });
}

/** Starts the PTY helper, which starts the target; resolves once the target runs. */
export async function startPty(
  supervisor: ProcessSupervisor,
  python: string,
  size: { columns: number; rows: number },
  argv: string[],
  input: CaptureInput,
): Promise<PtySession> {
  const owned = await supervisor
    .start(python, ['-c', PTY_HELPER, String(size.columns), String(size.rows), ...argv], {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      env: input.env,
      ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    })
    .catch((error: unknown) => {
      if (isReaError(error) && error.code === 'execution_failure')
        throw noPython(python, String(error.details['reason']));
      throw error;
    });
  owned.stdin?.on('error', () => undefined);
  const waiting = new Map<string, (line: Record<string, unknown>) => void>();
  let resolveExit!: (exit: { exitCode: number | null; signal: number | null }) => void;
  const exited = new Promise<{ exitCode: number | null; signal: number | null }>((resolve) => (resolveExit = resolve));
  let buffered = '';
  owned.stderr?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      if ('exit' in line)
        resolveExit({ exitCode: line['exit'] as number | null, signal: line['signal'] as number | null });
      for (const key of ['child', 'exec_error', 'signal']) {
        if (key in line && !('exit' in line)) waiting.get(key)?.(line);
      }
    }
  });
  // A helper that dies without reporting (killed at cleanup) leaves the target's exit unobserved.
  void owned.exited.then(() => resolveExit({ exitCode: null, signal: null }));
  const started = await new Promise<Record<string, unknown>>((resolve) => {
    waiting.set('child', resolve);
    waiting.set('exec_error', resolve);
    void owned.exited.then(() => resolve({ exec_error: `the helper exited: ${owned.stderrTail().slice(-400)}` }));
  });
  waiting.clear();
  if ('exec_error' in started) {
    const reason = String(started['exec_error']);
    if (/No module named|SyntaxError|not found/.test(reason) && !('child' in started)) throw noPython(python, reason);
    throw new ReaError('execution_failure', `The program could not start on a pty: ${reason}`, {
      remediation: 'Check the executable and its arguments.',
      details: { reason: 'pty-exec-failed', message: reason },
    });
  }
  const childPid = Number(started['child']);
  const send = (command: object) => owned.stdin?.write(`${JSON.stringify(command)}\n`);
  return {
    owned,
    exited,
    write: (text) => send({ w: Buffer.from(text, 'utf8').toString('base64') }),
    eof: () => send({ eof: true }),
    resize: (columns, rows) => send({ resize: [columns, rows] }),
    signal: (name, atMs) =>
      new Promise<SignalAttempt>((resolve) => {
        const done = (result: SignalAttempt['result']) =>
          resolve({ signal: name, pid: childPid, target: 'process', phase: 'action', result, at_ms: atMs });
        if (owned.exit() !== null) return done('not-running');
        waiting.set('signal', (line) => done(line['result'] as SignalAttempt['result']));
        void owned.exited.then(() => done('not-running'));
        send({ signal: constants.signals[name] });
      }),
  };
}

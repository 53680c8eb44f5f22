/**
 * The seam to the adb client: the only module that starts it. Every run goes through the call's
 * supervisor (so nothing outlives the call), with the server address REA chose, and the client's own
 * refusals (no server, no such device, unauthorized) are turned into typed errors here.
 */
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import type { AdbLocation } from './locate.js';

/** What one adb run produced. */
export interface AdbRun {
  stdout: Buffer;
  stderr: string;
  exitCode: number | null;
  /** True when stdout went past `maxStdout` and the rest was dropped. */
  truncated: boolean;
}

/** Options of one adb run. */
export interface AdbRunOptions {
  /** Bytes of stdout kept (default 8 MiB); the rest is drained and dropped. */
  maxStdout?: number;
  /** The device the run is for, named in errors. */
  serial?: string;
}

const DEFAULT_MAX_STDOUT = 8 * 1024 * 1024;
const PROVIDER_ID = 'android-device';

/** The client's refusals that concern the server or the device rather than the command it ran. */
export function clientRefusal(stderr: string, serial: string | undefined): ReaError | null {
  if (/cannot connect to daemon|failed to check server version|cannot start server/.test(stderr)) {
    return new ReaError('capability_unavailable', 'No adb server is running at the address REA uses.', {
      remediation:
        'Start the adb server yourself (`adb start-server`), or point ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT at a running one; REA never starts it.',
      details: { capability: 'adb-server', reason: 'adb-server-not-running', stderr_tail: stderr.slice(-1000) },
    });
  }
  if (/device unauthorized/.test(stderr)) {
    return new ReaError(
      'access_denied',
      `${serial === undefined ? 'The device' : `Device ${serial}`} has not authorized this computer.`,
      {
        remediation: 'Accept the USB debugging prompt on the device, then call again.',
        details: { resource: serial ?? null, reason: 'device-unauthorized' },
      },
    );
  }
  if (
    /device '.*' not found|no devices\/emulators found|device offline|device still (?:connecting|authorizing)/.test(
      stderr,
    )
  ) {
    return new ReaError(
      'target_unavailable',
      `${serial === undefined ? 'The device' : `Device ${serial}`} is not available: ${stderr.trim().split('\n').pop()}`,
      {
        remediation: 'Call list_android_devices to see the attached devices and their states.',
        details: { target: serial ?? null, reason: 'device-not-available' },
      },
    );
  }
  return null;
}

/**
 * Runs `adb <args>` through the call's supervisor and returns its output. Cancellation is `cancelled`;
 * the REA_ADB_TIMEOUT_MS deadline is `provider_timeout`; a refusal of the client itself (see
 * {@link clientRefusal}) is thrown typed. Any other exit status is returned for the caller to judge.
 */
export async function runAdb(
  adb: AdbLocation,
  context: Pick<ToolContext, 'supervisor' | 'signal'>,
  args: readonly string[],
  options: AdbRunOptions = {},
): Promise<AdbRun> {
  const { supervisor, signal } = context;
  throwIfAborted(signal, 'adb');
  const deadline = AbortSignal.timeout(adb.timeoutMs);
  const child = await supervisor.start(adb.path, args, {
    env: { ADB_SERVER_SOCKET: adb.serverSocket },
    stdout: 'pipe',
    signal: AbortSignal.any([signal, deadline]),
  });
  const limit = options.maxStdout ?? DEFAULT_MAX_STDOUT;
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  child.stdout!.on('data', (chunk: Buffer) => {
    if (kept >= limit) return void (truncated = true);
    const part = kept + chunk.length > limit ? chunk.subarray(0, limit - kept) : chunk;
    truncated ||= part.length < chunk.length;
    chunks.push(part);
    kept += part.length;
  });
  const exit = await child.exited;
  throwIfAborted(signal, 'adb');
  if (deadline.aborted && exit.exitCode !== 0) {
    throw new ReaError(
      'provider_timeout',
      `adb ${args
        .filter((a) => a !== '-s')
        .slice(0, 2)
        .join(' ')} did not finish within ${adb.timeoutMs} ms.`,
      {
        remediation: 'Raise REA_ADB_TIMEOUT_MS, or ask for less (a smaller file, fewer log lines).',
        details: { provider_id: PROVIDER_ID, deadline_ms: adb.timeoutMs, phase: 'adb' },
      },
    );
  }
  const stderr = child.stderrTail();
  const stdout = Buffer.concat(chunks);
  if (exit.exitCode !== 0) {
    // adb prints some of its own errors on stdout.
    const refusal = clientRefusal(`${stderr}\n${stdout.subarray(-2048).toString('utf8')}`, options.serial);
    if (refusal) throw refusal;
  }
  return { stdout, stderr, exitCode: exit.exitCode, truncated };
}

/** `execution_failure` for an adb run that failed at what it was asked to do. */
export function adbFailed(what: string, run: AdbRun, serial: string): ReaError {
  const reason = (run.stderr.trim() || run.stdout.toString('utf8').trim())
    .split('\n')
    .slice(-3)
    .join(' ')
    .slice(0, 500);
  return new ReaError(
    'execution_failure',
    `${what} failed on ${serial}: ${reason || `adb exited with ${run.exitCode}`}`,
    {
      remediation: 'Read the reason from the device; check the path, package or permission it names and call again.',
      details: {
        provider_id: PROVIDER_ID,
        exit_code: run.exitCode,
        signal: null,
        stderr_tail: run.stderr.slice(-1000),
      },
    },
  );
}

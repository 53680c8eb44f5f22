import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ReaError, isReaError } from '@rea/evidence';
import { cleanupIncomplete, startWaitingNotices, withDeadline } from '@rea/provider-kit';
import type { ActiveTarget, OwnedProcess, ProcessSupervisor, ProgressSink } from '@rea/provider-kit';
import { listenBridge } from './channel.js';
import type { BridgeChannel } from './channel.js';
import { BRIDGE_SOCKET_ENV, BRIDGE_TOKEN_ENV } from './protocol.js';
import type { BridgeHello, BridgeMethod, BridgeResult } from './protocol.js';
import type { JsonObject } from '@rea/evidence';

/** How to start the engine, given the owned directory it imports the target into. */
export interface EngineLaunch {
  command: string;
  args: readonly string[];
  /** Added to the engine's environment (the bridge socket and token are added by the core). */
  env?: Readonly<Record<string, string>>;
}

/** Options for {@link createExternalEngine}. */
export interface ExternalEngineOptions {
  /** The provider id (`ghidra`), in errors and the owned directory's name (`rea-<id>-…`). */
  providerId: string;
  /** The engine's display name (`Ghidra`). */
  engine: string;
  target: ActiveTarget;
  /** The provider session's supervisor (from `open`): it owns the process, directory and socket. */
  supervisor: ProcessSupervisor;
  /** The startup deadline in ms, and the setting that controls it. */
  startupMs: number;
  setting: string;
  /** Builds the engine's command line; `project` is a fresh empty directory inside the owned one. */
  launch(project: string): EngineLaunch;
  /** Spacing of waiting notices while startup is pending, in ms (default 10000). */
  waitingNoticeMs?: number;
}

/** What one call waiting for the engine brings: its cancellation and its progress. */
export interface EngineCall {
  signal: AbortSignal;
  progress?: ProgressSink;
}

type State =
  | { kind: 'idle' }
  | { kind: 'starting'; ready: Promise<void> }
  | { kind: 'ready' }
  | { kind: 'failed'; error: ReaError }
  | { kind: 'closed' };

/** A lazily started external engine serving the bridge protocol. */
export interface ExternalEngine {
  /** Starts the engine on the first call (import, analysis, bridge, digest and health checks). */
  ready(call: EngineCall): Promise<void>;
  /** Readies the engine, then sends one request. */
  request<M extends BridgeMethod>(method: M, params: JsonObject, signal: AbortSignal): Promise<BridgeResult<M>>;
  /** The engine's hello once it is ready, else null. */
  hello(): BridgeHello | null;
  /** `idle`, `starting`, `ready`, `failed` or `closed`. */
  state(): State['kind'];
  /** Stops the engine and removes what it owns; `cleanup_incomplete` when something remains. */
  close(): Promise<void>;
}

const quiet: ProgressSink = { report: () => undefined };
const SHUTDOWN_WAIT_MS = 2000;
const GRACE_MS = 3000;

function restart(providerId: string): string {
  return `Call close_binary, then open_binary with the same path and provider_id "${providerId}" to start the engine afresh.`;
}

/**
 * Creates the engine of one provider session. Nothing starts until the first `ready` or `request`;
 * then the engine runs as an owned process importing the target into a fresh owned `rea-<id>-…`
 * directory, and connects back over a 0600 Unix socket in that directory, presenting a per-session
 * token. A failed or cancelled startup is not retried: later calls report it until the session is
 * closed and reopened, and another provider is never substituted.
 */
export function createExternalEngine(options: ExternalEngineOptions): ExternalEngine {
  const { providerId, engine, target, supervisor } = options;
  let state: State = { kind: 'idle' };
  let channel: BridgeChannel | null = null;
  let process: OwnedProcess | null = null;
  let directory: string | null = null;
  let greeting: BridgeHello | null = null;
  /** Aborts a pending startup when the session closes. */
  const closing = new AbortController();

  const fail = (error: ReaError) => {
    if (state.kind === 'closed' || state.kind === 'failed') return;
    state = { kind: 'failed', error };
  };

  const exitError = (exit: { exitCode: number | null; signal: string | null }, phase: string) =>
    new ReaError('execution_failure', `${engine} exited during ${phase} (${exit.signal ?? `code ${exit.exitCode}`}).`, {
      remediation: restart(providerId),
      details: {
        provider_id: providerId,
        reason: 'engine-exited',
        phase,
        exit_code: exit.exitCode,
        exit_signal: exit.signal,
        stderr_tail: process?.stderrTail() ?? '',
      },
    });

  const teardown = async (): Promise<void> => {
    const remaining: Array<{ kind: 'processes' | 'temp-directories'; identifiers: string[] }> = [];
    if (channel && process && process.exit() === null && channel.failure() === null) {
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), SHUTDOWN_WAIT_MS);
      await channel.request('shutdown', {}, stop.signal).catch(() => undefined);
      clearTimeout(timer);
    }
    await channel?.close();
    try {
      await process?.terminate({ graceMs: GRACE_MS });
    } catch (error) {
      if (!isReaError(error)) throw error;
      remaining.push({ kind: 'processes', identifiers: [String(process?.identity.pid)] });
    }
    if (directory) {
      try {
        await rm(directory, { recursive: true, force: true });
      } catch {
        remaining.push({ kind: 'temp-directories', identifiers: [directory] });
      }
    }
    if (remaining.length > 0) throw cleanupIncomplete(remaining);
  };

  const start = async (call: EngineCall): Promise<void> => {
    const progress = call.progress ?? quiet;
    progress.report(`starting ${engine}: import, auto-analysis, then the bridge`, 'startup');
    const notices = startWaitingNotices(progress, {
      phase: 'startup',
      everyMs: options.waitingNoticeMs ?? 10_000,
      signal: call.signal,
    });
    try {
      await withDeadline(
        async (signal) => {
          directory = await supervisor.createTempDir(providerId);
          const socket = join(directory, 'bridge.sock');
          const token = randomBytes(32).toString('hex');
          channel = await listenBridge(socket, token, engine);
          supervisor.registerSocket(socket, () => channel?.close());
          const project = join(directory, 'project');
          await mkdir(project, { mode: 0o700 });
          const launch = options.launch(project);
          process = await supervisor.start(launch.command, launch.args, {
            env: { ...launch.env, [BRIDGE_SOCKET_ENV]: socket, [BRIDGE_TOKEN_ENV]: token },
            stderr: 'pipe',
            signal,
          });
          const owned = process;
          const exited = owned.exited.then((exit) => {
            throw exitError(exit, 'startup');
          });
          exited.catch(() => undefined);
          const hello = await Promise.race([channel.hello, exited]);
          if (hello.imported_sha256 !== target.sha256) {
            throw new ReaError(
              'artifact_integrity_mismatch',
              `${engine} imported bytes whose SHA-256 differs from the target's: no answer is given from them.`,
              {
                remediation: `Check that ${target.path} is not changing, then ${restart(providerId).replace(/^Call/, 'call')}`,
                details: {
                  provider_id: providerId,
                  declared_sha256: target.sha256,
                  observed_sha256: hello.imported_sha256,
                },
              },
            );
          }
          await Promise.race([channel.request('health', {}, signal), exited]);
          greeting = hello;
        },
        {
          ms: options.startupMs,
          signal: AbortSignal.any([call.signal, closing.signal]),
          phase: 'startup',
          providerId,
          setting: options.setting,
        },
      );
    } catch (error) {
      notices.stop();
      const failure = isReaError(error)
        ? error
        : new ReaError('execution_failure', `${engine} could not start: ${String(error)}.`, {
            details: { provider_id: providerId, reason: 'startup-failed' },
          });
      fail(failure);
      await teardown().catch(() => undefined);
      throw failure;
    }
    notices.stop();
    if (state.kind === 'closed') throw unusable();
    const owned = process as OwnedProcess | null;
    const bridge = channel as BridgeChannel | null;
    bridge?.onBreak((error) => fail(error));
    void owned?.exited.then((exit) => {
      if (state.kind === 'ready') fail(exitError(exit, 'a query'));
    });
    state = { kind: 'ready' };
    progress.report(`${engine} ${greeting?.engine.version ?? ''} is ready`.replace('  ', ' '), 'startup');
  };

  const unusable = (): ReaError => {
    if (state.kind === 'closed') {
      return new ReaError('target_unavailable', `The ${engine} session is closed.`, {
        remediation: 'Open the target again with open_binary.',
        details: { provider_id: providerId, reason: 'closed' },
      });
    }
    const cause = state.kind === 'failed' ? state.error : null;
    return new ReaError(
      'provider_unavailable',
      `${engine} is not running for this target: ${cause?.message ?? 'it stopped'}`,
      {
        remediation: restart(providerId),
        details: { provider_id: providerId, reason: 'engine-stopped', cause: cause?.code ?? null },
      },
    );
  };

  const ready = async (call: EngineCall): Promise<void> => {
    if (state.kind === 'ready') return;
    if (state.kind === 'idle') {
      const pending = start(call);
      state = { kind: 'starting', ready: pending };
      pending.catch(() => undefined);
      return pending;
    }
    if (state.kind === 'starting') {
      const waiting = state.ready;
      return new Promise<void>((resolve, reject) => {
        const onAbort = () =>
          reject(
            new ReaError('cancelled', 'Cancelled while the engine starts.', {
              details: { phase: 'startup', provider_id: providerId },
            }),
          );
        call.signal.addEventListener('abort', onAbort, { once: true });
        waiting.then(resolve, reject).finally(() => call.signal.removeEventListener('abort', onAbort));
      });
    }
    throw unusable();
  };

  return {
    ready,
    hello: () => greeting,
    state: () => state.kind,
    request: async (method, params, signal) => {
      await ready({ signal });
      if (state.kind !== 'ready' || channel === null) throw unusable();
      return (channel as BridgeChannel).request(method, params, signal);
    },
    close: async () => {
      const wasStarting = state.kind === 'starting' ? state.ready : null;
      state = { kind: 'closed' };
      closing.abort();
      if (wasStarting) await wasStarting.catch(() => undefined);
      await teardown();
    },
  };
}

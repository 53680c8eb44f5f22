// The one module that launches hdiutil (macOS). The image is attached read-only, as a process owned by
// a provider-kit supervisor (the tool call's, when run as a tool), to a mount point inside an owned
// temporary directory, and is always detached: after success, failure, a deadline or cancellation.
import { lstat, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ReaError, isReaError } from '@rea/evidence';
import { createProcessSupervisor, withDeadline } from '@rea/provider-kit';
import type { OwnedProcess, ProcessSupervisor } from '@rea/provider-kit';

/** How DMG images are attached. */
export interface DmgOptions {
  /**
   * The `hdiutil` executable (default `hdiutil`). Naming one also permits DMG inventory on a host other
   * than macOS, for a compatible tool that understands `attach -readonly -nobrowse -noautoopen
   * -mountpoint <dir> <image>` and `detach <dir> [-force]`.
   */
  hdiutil?: string;
  /** Deadline of the attach run, in ms; default 120000. */
  timeoutMs?: number;
  /** Deadline of each detach attempt (plain, then forced), in ms; default `timeoutMs`. */
  detachTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/** The `capability_unavailable` error for DMG on a host without hdiutil. */
export function dmgUnavailable(platform: NodeJS.Platform): ReaError {
  return new ReaError(
    'capability_unavailable',
    `DMG images can only be inventoried on macOS (this host is ${platform}).`,
    {
      details: { capability: 'dmg', platform, alternatives: [] },
      remediation:
        'Run inspect_artifact on a macOS host (it uses hdiutil), or convert the image to a directory there first.',
    },
  );
}

/** Throws {@link dmgUnavailable} unless the host is macOS or an hdiutil executable was named. */
export function assertDmgCapable(platform: NodeJS.Platform, options: DmgOptions | undefined): void {
  if (platform !== 'darwin' && options?.hdiutil === undefined) throw dmgUnavailable(platform);
}

/** Runs one hdiutil command as an owned process under a deadline: ok when it exits 0, else its message. */
async function hdiutil(
  supervisor: ProcessSupervisor,
  runs: OwnedProcess[],
  executable: string,
  args: string[],
  phase: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  return withDeadline(
    async (bounded) => {
      const owned = await supervisor.start(executable, args, { signal: bounded, stdout: 'ignore' });
      runs.push(owned);
      const exit = await owned.exited;
      if (exit.exitCode === 0) return { ok: true } as const;
      const how = exit.signal !== null ? `ended by ${exit.signal}` : `exited with status ${exit.exitCode}`;
      return { ok: false, reason: owned.stderrTail().trim() || how } as const;
    },
    {
      ms: timeoutMs,
      phase,
      providerId: 'artifact',
      ...(signal ? { signal } : {}),
    },
  );
}

/**
 * True while a file system is mounted at `mount`: its device id differs from its parent directory's.
 * An empty mounted volume counts (a listing would not tell it from a bare directory). A path that is
 * gone holds nothing; any other failure to look is answered "attached", so a mount is never assumed away.
 */
async function mountedAt(mount: string): Promise<boolean> {
  try {
    const [inner, outer] = await Promise.all([lstat(mount), lstat(dirname(mount))]);
    return inner.dev !== outer.dev;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** Terminates every hdiutil run still going and waits (bounded) until each has been reaped. */
async function endProcesses(runs: readonly OwnedProcess[]): Promise<void> {
  await Promise.allSettled(
    runs.map(async (owned) => {
      await owned.terminate({ graceMs: 1000 });
      await Promise.race([owned.exited, new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
    }),
  );
}

/** Detaches `mount`, retrying once with `-force`; never throws. True when detached. */
async function detach(
  supervisor: ProcessSupervisor,
  runs: OwnedProcess[],
  executable: string,
  mount: string,
  timeoutMs: number,
): Promise<boolean> {
  for (const extra of [[], ['-force']]) {
    const outcome = await hdiutil(
      supervisor,
      runs,
      executable,
      ['detach', mount, ...extra],
      'dmg detach',
      timeoutMs,
      undefined,
    ).catch(() => ({ ok: false }) as const);
    if (outcome.ok) return true;
  }
  return false;
}

/**
 * Attaches `image` read-only at a mount point inside an owned temporary directory, runs `fn` on it,
 * and always detaches (also when `fn` throws, the deadline passes or `signal` aborts). Errors:
 * `execution_failure` when attach fails (`details.phase: "attach"`, hdiutil's message),
 * `provider_timeout` past the deadline, `cancelled` on abort, and `cleanup_incomplete`
 * (`details.remaining` listing the mount point) when the image cannot be detached — which replaces
 * any other outcome, since a leftover mount is what the caller must know about.
 *
 * With `callSupervisor` (a tool call's), hdiutil runs, the temporary directory and the mount belong to
 * that call: the host sees them in the call's lineage and its close releases whatever is left.
 * Without one (library use) a supervisor of its own is made and closed here.
 */
export async function withMountedDmg<T>(
  image: string,
  signal: AbortSignal | undefined,
  fn: (mount: string) => Promise<T>,
  options: DmgOptions = {},
  callSupervisor?: ProcessSupervisor,
): Promise<T> {
  const executable = options.hdiutil ?? 'hdiutil';
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // No signal here: cancellation must not close the supervisor before detach has run.
  const supervisor = callSupervisor ?? createProcessSupervisor({ graceMs: 1000 });
  const runs: OwnedProcess[] = [];
  let mount: string | null = null;
  // 'no' = attach refused; 'yes' = attached; 'unknown' = attach interrupted (deadline or cancel).
  let attached: 'no' | 'yes' | 'unknown' = 'no';
  let outcome: { value: T } | { error: unknown };
  try {
    const dir = await supervisor.createTempDir('dmg');
    mount = join(dir, 'mount');
    await mkdir(mount, { mode: 0o700 });
    const point = mount;
    // Owned before it exists: whoever closes the supervisor detaches what is still attached.
    supervisor.registerMount(point, async () => {
      if (!(await detach(supervisor, runs, executable, point, options.detachTimeoutMs ?? timeoutMs))) {
        throw new Error(`${point} is still attached`);
      }
    });
    attached = 'unknown';
    const args = ['attach', '-readonly', '-nobrowse', '-noautoopen', '-mountpoint', mount, image];
    const attach = await hdiutil(supervisor, runs, executable, args, 'dmg attach', timeoutMs, signal);
    if (!attach.ok) {
      attached = 'no';
      throw new ReaError('execution_failure', `hdiutil could not attach the image: ${attach.reason}`, {
        remediation: 'Check that the file is a disk image hdiutil can open (hdiutil imageinfo), then retry.',
        details: {
          provider_id: 'artifact',
          command: 'hdiutil',
          phase: 'attach',
          stderr_tail: attach.reason.slice(-2000),
        },
      });
    }
    attached = 'yes';
    outcome = { value: await fn(mount) };
  } catch (error) {
    outcome = { error };
  }
  // An interrupted attach must be over before detach runs, or it could mount after the detach.
  await endProcesses(runs);
  let detached = true;
  if (mount !== null && attached !== 'no') {
    detached = await detach(supervisor, runs, executable, mount, options.detachTimeoutMs ?? timeoutMs);
    // An interrupted attach may have mounted nothing; only a mount point still mounted is left behind.
    if (!detached && attached === 'unknown' && !(await mountedAt(mount))) detached = true;
  }
  const remaining: Array<{ kind: string; identifiers: string[] }> = [];
  if (detached && callSupervisor) {
    // The call's close removes the directory (and reports anything left) when the call ends.
    await endProcesses(runs);
  } else if (detached) {
    await supervisor.closeAll().catch((error: unknown) => {
      if (!isReaError(error) || error.code !== 'cleanup_incomplete') throw error;
      remaining.push(...(error.details['remaining'] as unknown as typeof remaining));
    });
  } else {
    // With the image still attached the owned directory is left in place: never delete through a mount.
    await endProcesses(runs);
    remaining.push({ kind: 'mounts', identifiers: [mount!] });
  }
  if (remaining.length > 0) {
    throw new ReaError(
      'cleanup_incomplete',
      detached
        ? `Owned resources remain after inventorying the disk image: ${remaining.map((r) => r.kind).join(', ')}.`
        : `The disk image could not be detached from ${mount}; it is still attached there.`,
      {
        remediation: detached
          ? 'Remove the listed resources by hand.'
          : `Detach it by hand (hdiutil detach -force ${mount}), then remove the directory.`,
        details: { remaining },
      },
    );
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

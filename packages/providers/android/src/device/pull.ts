import { lstat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ReaError } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import { adbFailed, runAdb } from './adb.js';
import { listDevices } from './devices.js';
import type { AdbLocation } from './locate.js';
import { digestFile, openOutputPlace } from './output.js';

/** One file copied from a device. */
export interface PulledFile {
  remote_path: string;
  local_path: string;
  size: number;
  sha256: string;
}

/** Why a pull failed: the device went away, the remote file is missing, or adb's own reason. */
async function pullFailure(
  adb: AdbLocation,
  context: Pick<ToolContext, 'supervisor' | 'signal'>,
  serial: string,
  remote: string,
  run: Awaited<ReturnType<typeof runAdb>>,
): Promise<ReaError> {
  const attached = await listDevices(adb, context).catch(() => []);
  if (!attached.some((d) => d.serial === serial && d.state === 'device')) {
    return new ReaError(
      'target_unavailable',
      `Device ${serial} went away while ${remote} was being pulled; nothing was kept.`,
      {
        remediation: 'Reconnect the device and call again.',
        details: { target: serial, reason: 'device-disconnected', path: remote },
      },
    );
  }
  if (/does not exist|No such file/.test(`${run.stderr}\n${run.stdout.toString('utf8')}`)) {
    return new ReaError('not_found', `${remote} does not exist on ${serial}.`, {
      remediation: 'Check the path with list_android_directory.',
      details: { reason: 'missing', path: remote },
    });
  }
  return adbFailed(`Pulling ${remote}`, run, serial);
}

/**
 * Copies `remotes` from the device into `outputDirectory` (or a fresh directory), each under its base
 * name. All or nothing: on any failure (including cancellation) every file of the call is removed.
 */
export async function pullFiles(
  adb: AdbLocation,
  context: Pick<ToolContext, 'supervisor' | 'signal'>,
  serial: string,
  remotes: readonly string[],
  outputDirectory: string | undefined,
): Promise<{ output_directory: string; files: PulledFile[] }> {
  const place = await openOutputPlace(outputDirectory, 'pull');
  try {
    const files: PulledFile[] = [];
    for (const remote of remotes) {
      const staged = await place.stage(basename(remote) || 'pulled');
      const run = await runAdb(adb, context, ['-s', serial, 'pull', remote, staged], { serial });
      if (run.exitCode !== 0) throw await pullFailure(adb, context, serial, remote, run);
      if ((await lstat(staged)).isDirectory()) {
        throw new ReaError(
          'invalid_request',
          `${remote} is a directory on ${serial}; pull_android_file copies files.`,
          {
            remediation: 'List it with list_android_directory and pull the files it holds.',
            details: { reason: 'is-a-directory', path: remote },
          },
        );
      }
      const local = await place.commit(staged);
      files.push({ remote_path: remote, local_path: local, ...(await digestFile(local)) });
    }
    return { output_directory: place.directory, files };
  } catch (error) {
    await place.discard();
    throw error;
  }
}

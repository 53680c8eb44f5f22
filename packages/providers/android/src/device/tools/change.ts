import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { adbFailed, runAdb } from '../adb.js';
import type { AdbRun } from '../adb.js';
import { CHANGES_DEVICE, openDevice, serialInput } from './common.js';
import type { EnvironmentSource } from './common.js';
import { packageInput } from './packages.js';
import { parseLauncherActivity } from '../parse.js';
import type { DeviceShell } from '../shell.js';

const localFile = z.string().min(1).describe('Path of a local regular file.');

async function requireFile(path: string): Promise<number> {
  const info = await stat(path).catch(() => null);
  if (info === null) {
    throw new ReaError('not_found', `No regular file at ${path}.`, {
      remediation: 'Pass the path of an existing local file.',
      details: { reason: 'missing', path },
    });
  }
  if (!info.isFile()) {
    // A folder, FIFO, socket or device exists there, but is not a file to send.
    throw new ReaError('unsupported_target', `${path} is not a regular file.`, {
      remediation: 'Pass the path of a local regular file.',
      details: { reason: 'not-a-file', format: info.isDirectory() ? 'directory' : 'special', path },
    });
  }
  return info.size;
}

/** The package manager's verdict: `Success`, or `Failure [CODE…]` as `execution_failure`. */
function verdict(what: string, run: AdbRun, serial: string): void {
  const text = `${run.stdout.toString('utf8')}\n${run.stderr}`;
  if (run.exitCode === 0 && /^Success\s*$/m.test(text) && !/Failure \[/.test(text)) return;
  const failure = /Failure \[([^\]\s:]+)/.exec(text)?.[1] ?? null;
  const error = adbFailed(what, run, serial);
  if (failure) (error.details as Record<string, unknown>)['failure'] = failure;
  throw error;
}

/** `push_android_file`: copies a local file onto the device. */
export function pushFileTool(env: EnvironmentSource) {
  return defineTool({
    name: 'push_android_file',
    title: 'Push a file to a device',
    description: 'Copies a local file to a path on the device, replacing a file there. Changes the device.',
    input: z.object({
      serial: serialInput,
      local_path: localFile,
      remote_path: z
        .string()
        .regex(/^\/[^\0\n]*$/)
        .describe('Absolute device path to write.'),
    }),
    result: z.object({ serial: z.string(), remote_path: z.string(), size: z.number() }),
    examples: [
      {
        input: { local_path: '/tmp/sample.txt', remote_path: '/data/local/tmp/sample.txt' },
        description: 'Into the shell-writable scratch directory.',
      },
    ],
    effects: { ...CHANGES_DEVICE, mayDiscardData: true }, // replaces a device file of that name
    produces: 'result',
    run: async ({ serial, local_path, remote_path }, context) => {
      const size = await requireFile(local_path);
      const { adb, serial: chosen } = await openDevice(env, context, serial);
      const run = await runAdb(adb, context, ['-s', chosen, 'push', local_path, remote_path], { serial: chosen });
      if (run.exitCode !== 0) throw adbFailed(`Pushing to ${remote_path}`, run, chosen);
      return { serial: chosen, remote_path, size };
    },
  });
}

/** `install_android_package`: installs an APK (or a base APK with its splits). */
export function installPackageTool(env: EnvironmentSource) {
  return defineTool({
    name: 'install_android_package',
    title: 'Install an APK on a device',
    description: 'Installs an APK, or a base APK with its split APKs, on the device (adb install). Changes the device.',
    input: z.object({
      serial: serialInput,
      apk_paths: z.array(localFile).min(1).max(64).describe('The APK, or the base and split APKs of one app.'),
      replace: z.boolean().default(false).describe('Replace an installed version (-r).'),
      allow_downgrade: z.boolean().default(false).describe('Allow a lower version code (-d).'),
      grant_permissions: z.boolean().default(false).describe('Grant the runtime permissions (-g).'),
    }),
    result: z.object({ serial: z.string(), installed: z.array(z.string()) }),
    examples: [{ input: { apk_paths: ['/tmp/app.apk'], replace: true }, description: 'Install or update one APK.' }],
    effects: CHANGES_DEVICE,
    produces: 'result',
    run: async ({ serial, apk_paths, replace, allow_downgrade, grant_permissions }, context) => {
      for (const path of apk_paths) await requireFile(path);
      const { adb, serial: chosen } = await openDevice(env, context, serial);
      const flags = [
        ...(replace ? ['-r'] : []),
        ...(allow_downgrade ? ['-d'] : []),
        ...(grant_permissions ? ['-g'] : []),
      ];
      const command = apk_paths.length > 1 ? 'install-multiple' : 'install';
      const run = await runAdb(adb, context, ['-s', chosen, command, ...flags, ...apk_paths], { serial: chosen });
      verdict('Installing', run, chosen);
      return { serial: chosen, installed: apk_paths };
    },
  });
}

/** `uninstall_android_package`: removes an installed package. */
export function uninstallPackageTool(env: EnvironmentSource) {
  return defineTool({
    name: 'uninstall_android_package',
    title: 'Uninstall a package from a device',
    description:
      'Uninstalls a package from the device, optionally keeping its data and caches (-k). Changes the device.',
    input: z.object({
      serial: serialInput,
      package: packageInput,
      keep_data: z.boolean().default(false).describe('Keep data and cache directories.'),
    }),
    result: z.object({ serial: z.string(), package: z.string() }),
    examples: [{ input: { package: 'com.example.app' }, description: 'Remove an app.' }],
    effects: { ...CHANGES_DEVICE, mayDiscardData: true }, // removes the app and, without keep_data, its data
    produces: 'result',
    run: async ({ serial, package: name, keep_data }, context) => {
      const { adb, serial: chosen } = await openDevice(env, context, serial);
      const run = await runAdb(adb, context, ['-s', chosen, 'uninstall', ...(keep_data ? ['-k'] : []), name], {
        serial: chosen,
      });
      verdict(`Uninstalling ${name}`, run, chosen);
      return { serial: chosen, package: name };
    },
  });
}

/**
 * The launcher activity of `name`: from `cmd package resolve-activity` (Android 7 and later), else, or
 * when that fails, from the activity resolver table of `dumpsys package`.
 */
async function launcherActivity(shell: DeviceShell, name: string): Promise<string | null> {
  if (((await shell.sdk()) ?? Infinity) >= 24) {
    const run = await shell.run(['cmd', 'package', 'resolve-activity', '--brief', name]);
    const last = run.stdout.toString('utf8').trim().split('\n').pop()?.trim() ?? '';
    if (run.exitCode === 0 && last.includes('/')) return last;
  }
  const dump = await shell.text('Resolving the launcher activity', ['dumpsys', 'package', name]);
  return parseLauncherActivity(dump, name);
}

/** `start_android_app`: starts an activity, or the package's launcher activity. */
export function startAppTool(env: EnvironmentSource) {
  return defineTool({
    name: 'start_android_app',
    title: 'Start an app on a device',
    description:
      'Starts an activity of a package (its launcher activity when none is named) with am start and waits for it to launch. Runs the app: changes the device.',
    input: z.object({
      serial: serialInput,
      package: packageInput,
      activity: z
        .string()
        .regex(/^\.?[\w.$]+$/)
        .optional()
        .describe('Activity class (full, or starting with "." for one in the package).'),
    }),
    result: z.object({ serial: z.string(), component: z.string(), status: z.string().nullable() }),
    examples: [{ input: { package: 'com.android.settings' }, description: 'Open Settings.' }],
    effects: CHANGES_DEVICE,
    produces: 'result',
    run: async ({ serial, package: name, activity }, context) => {
      const { shell, serial: chosen } = await openDevice(env, context, serial);
      let component = activity === undefined ? null : `${name}/${activity}`;
      if (component === null) {
        component = await launcherActivity(shell, name);
        if (component === null) {
          throw new ReaError('not_found', `${name} has no launcher activity on ${chosen}.`, {
            remediation: 'Name the activity to start, or check the package with inspect_android_device_package.',
            details: { reason: 'missing', package: name },
          });
        }
      }
      const run = await shell.run(['am', 'start', '-W', '-n', component]);
      const out = run.stdout.toString('utf8');
      // am reports a refused start on stdout and may still exit 0.
      if (run.exitCode !== 0 || /^Error:/m.test(out))
        throw adbFailed(`Starting ${component}`, { ...run, stderr: `${run.stderr}${out}` }, chosen);
      return { serial: chosen, component, status: /^Status: (\S+)/m.exec(out)?.[1] ?? null };
    },
  });
}

/** `stop_android_app`: force-stops a package. */
export function stopAppTool(env: EnvironmentSource) {
  return defineTool({
    name: 'stop_android_app',
    title: 'Stop an app on a device',
    description: 'Force-stops every process of a package (am force-stop). Changes the device.',
    input: z.object({ serial: serialInput, package: packageInput }),
    result: z.object({ serial: z.string(), package: z.string() }),
    examples: [{ input: { package: 'com.android.settings' }, description: 'Stop Settings.' }],
    effects: { ...CHANGES_DEVICE, idempotent: true },
    produces: 'result',
    run: async ({ serial, package: name }, context) => {
      const { shell, serial: chosen } = await openDevice(env, context, serial);
      await shell.text(`Stopping ${name}`, ['am', 'force-stop', name]);
      return { serial: chosen, package: name };
    },
  });
}

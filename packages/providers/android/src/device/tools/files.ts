import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { adbFailed, runAdb } from '../adb.js';
import { digestFile, openOutputPlace } from '../output.js';
import { parseSyncListing } from '../parse.js';
import { pullFiles } from '../pull.js';
import { COPIES_FROM_DEVICE, READS_DEVICE, openDevice, serialInput } from './common.js';
import type { EnvironmentSource } from './common.js';
import { packageInput, packagePaths } from './packages.js';

/** An absolute path on the device. */
const remotePath = z
  .string()
  .regex(/^\/[^\0\n]*$/, 'an absolute device path')
  .describe('Absolute path on the device.');
const outputDirectory = z
  .string()
  .min(1)
  .optional()
  .describe('Existing local directory to write into (never overwriting); omitted: a fresh directory REA makes.');

/** `list_android_directory`: the entries of a device directory, through the sync service. */
export function listDirectoryTool(env: EnvironmentSource) {
  return defineTool({
    name: 'list_android_directory',
    title: 'List a device directory',
    description:
      'Lists a directory on a device (name, type, mode, size, mtime) as the adb sync service sees it. Read-only.',
    input: z.object({ serial: serialInput, path: remotePath }),
    result: z.object({
      serial: z.string(),
      path: z.string(),
      entries: z.array(
        z.object({
          name: z.string(),
          type: z.enum(['file', 'directory', 'symlink', 'other']),
          mode: z.string(),
          size: z.number(),
          mtime: z.number(),
        }),
      ),
    }),
    examples: [{ input: { path: '/sdcard' }, description: 'Shared storage.' }],
    effects: { ...READS_DEVICE, idempotent: true },
    produces: 'result',
    run: async ({ serial, path }, context) => {
      const { adb, shell, serial: chosen } = await openDevice(env, context, serial);
      const run = await runAdb(adb, context, ['-s', chosen, 'ls', path], { serial: chosen });
      if (run.exitCode !== 0) throw adbFailed(`Listing ${path}`, run, chosen);
      const entries = parseSyncListing(run.stdout.toString('utf8'));
      // The sync service answers an empty listing for a missing or unreadable directory alike.
      if (entries.length === 0 && (await shell.run(['test', '-d', path])).exitCode !== 0) {
        throw new ReaError('not_found', `${path} is not a directory on ${chosen}.`, {
          remediation: 'List its parent to find the right path.',
          details: { reason: 'missing', path },
        });
      }
      return { serial: chosen, path, entries };
    },
  });
}

const pulledFile = z.object({ remote_path: z.string(), local_path: z.string(), size: z.number(), sha256: z.string() });

/** `pull_android_file`: copies a device file, or every APK of an installed package, into local files. */
export function pullFileTool(env: EnvironmentSource) {
  return defineTool({
    name: 'pull_android_file',
    title: 'Pull a file or package from a device',
    description:
      'Copies one device file, or the APKs (base and splits) of an installed package, into local files with their SHA-256. All or nothing: a failed pull leaves no file. Does not change the device.',
    input: z.union([
      z.object({ serial: serialInput, path: remotePath, output_directory: outputDirectory }).strict(),
      z.object({ serial: serialInput, package: packageInput, output_directory: outputDirectory }).strict(),
    ]),
    result: z.object({ serial: z.string(), output_directory: z.string(), files: z.array(pulledFile) }),
    examples: [
      { input: { path: '/system/etc/hosts' }, description: 'A device file into a fresh directory.' },
      { input: { package: 'com.android.settings' }, description: 'The APKs of an installed app.' },
    ],
    effects: COPIES_FROM_DEVICE,
    produces: 'result',
    run: async (input, context) => {
      const { adb, shell, serial } = await openDevice(env, context, input.serial);
      const remotes = 'package' in input ? await packagePaths(shell, input.package) : [input.path];
      return { serial, ...(await pullFiles(adb, context, serial, remotes, input.output_directory)) };
    },
  });
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** `capture_android_screen`: a PNG of the device screen. */
export function captureScreenTool(env: EnvironmentSource) {
  return defineTool({
    name: 'capture_android_screen',
    title: 'Capture a device screen',
    description:
      'Captures the device screen as a PNG file (screencap) and returns its path and SHA-256. Does not change the device.',
    input: z.object({ serial: serialInput, output_directory: outputDirectory }),
    result: z.object({ serial: z.string(), local_path: z.string(), size: z.number(), sha256: z.string() }),
    examples: [{ input: {}, description: 'The screen of the one attached device.' }],
    effects: COPIES_FROM_DEVICE,
    produces: 'result',
    run: async ({ serial, output_directory }, context) => {
      const { adb, serial: chosen } = await openDevice(env, context, serial);
      const run = await runAdb(adb, context, ['-s', chosen, 'exec-out', 'screencap', '-p'], {
        serial: chosen,
        maxStdout: 128 * 1024 * 1024,
      });
      if (run.exitCode !== 0 || run.truncated || !run.stdout.subarray(0, 8).equals(PNG))
        throw adbFailed('Capturing the screen', run, chosen);
      const place = await openOutputPlace(output_directory, 'screen');
      try {
        const staged = await place.stage(`screen-${chosen.replace(/[^\w.-]/g, '_')}-${Date.now()}.png`);
        await writeFile(staged, run.stdout, { signal: context.signal, flag: 'wx' });
        const local_path = await place.commit(staged);
        return { serial: chosen, local_path, ...(await digestFile(local_path)) };
      } catch (error) {
        await place.discard();
        throw error;
      }
    },
  });
}

const BUFFERS = ['main', 'system', 'crash', 'events', 'radio', 'all'] as const;

/** `read_android_logcat`: the last lines of a log buffer, bounded. */
export function readLogcatTool(env: EnvironmentSource) {
  return defineTool({
    name: 'read_android_logcat',
    title: 'Read the device log',
    description:
      'Returns the most recent lines of a logcat buffer (bounded by max_lines), optionally at or above a priority. Dumps and returns; never follows. Read-only.',
    input: z.object({
      serial: serialInput,
      buffer: z.enum(BUFFERS).default('main').describe('Log buffer.'),
      max_lines: z.number().int().min(1).max(5000).default(200).describe('Most recent lines returned.'),
      min_priority: z.enum(['V', 'D', 'I', 'W', 'E', 'F']).default('V').describe('Lowest priority kept.'),
    }),
    result: z.object({ serial: z.string(), lines: z.array(z.string()), truncated: z.boolean() }),
    examples: [{ input: { max_lines: 50, min_priority: 'W' }, description: 'Recent warnings and errors.' }],
    effects: READS_DEVICE,
    produces: 'result',
    run: async ({ serial, buffer, max_lines, min_priority }, context) => {
      const { shell, serial: chosen } = await openDevice(env, context, serial);
      const words = ['logcat', '-d', '-b', buffer, '-t', String(max_lines), '-v', 'threadtime', `*:${min_priority}`];
      const run = await shell.run(words, { maxStdout: 4 * 1024 * 1024 });
      if (run.exitCode !== 0) throw adbFailed('Reading logcat', run, chosen);
      const lines = run.stdout
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.startsWith('--------- beginning of'));
      return { serial: chosen, lines: lines.slice(-max_lines), truncated: run.truncated };
    },
  });
}

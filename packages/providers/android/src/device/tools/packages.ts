import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { parsePackageDump, parsePackagePaths, parsePackages } from '../parse.js';
import type { DeviceShell } from '../shell.js';
import { READS_DEVICE, openDevice, serialInput } from './common.js';
import type { EnvironmentSource } from './common.js';

/** The package name input. */
export const packageInput = z
  .string()
  .regex(/^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)*$/, 'an Android package name such as com.example.app')
  .describe('Package name, such as com.example.app.');

/** The APK paths of an installed package; `not_found` when it is not installed. */
export async function packagePaths(shell: DeviceShell, name: string): Promise<string[]> {
  const run = await shell.run(['pm', 'path', name]);
  const paths = parsePackagePaths(run.stdout.toString('utf8'));
  if (paths.length === 0) {
    throw new ReaError('not_found', `Package ${name} is not installed on ${shell.serial}.`, {
      remediation: 'Call list_android_packages to see the installed packages.',
      details: { reason: 'missing', package: name, serial: shell.serial },
    });
  }
  return paths;
}

/** `list_android_packages`: installed packages with their APK path and uid. */
export function listPackagesTool(env: EnvironmentSource) {
  return defineTool({
    name: 'list_android_packages',
    title: 'List installed Android packages',
    description:
      'Lists the packages installed on a device (name, base APK path, uid), optionally only third-party ones or names containing a text. Read-only.',
    input: z.object({
      serial: serialInput,
      third_party_only: z.boolean().default(false).describe('Only packages the user installed.'),
      contains: z
        .string()
        .regex(/^[\w.]+$/)
        .optional()
        .describe('Only names containing this text.'),
      limit: z.number().int().min(1).max(5000).default(500).describe('Most packages returned.'),
    }),
    result: z.object({
      serial: z.string(),
      total: z.number().int(),
      truncated: z.boolean(),
      packages: z.array(z.object({ package: z.string(), apk_path: z.string(), uid: z.number().int().nullable() })),
    }),
    examples: [{ input: { third_party_only: true }, description: 'Apps the user installed.' }],
    effects: { ...READS_DEVICE, idempotent: true },
    produces: 'result',
    run: async ({ serial, third_party_only, contains, limit }, context) => {
      const { shell, serial: chosen } = await openDevice(env, context, serial);
      const words = [
        'pm',
        'list',
        'packages',
        '-f',
        '-U',
        ...(third_party_only ? ['-3'] : []),
        ...(contains ? [contains] : []),
      ];
      const all = parsePackages(await shell.text('Listing packages', words)).sort((a, b) =>
        a.package.localeCompare(b.package),
      );
      return { serial: chosen, total: all.length, truncated: all.length > limit, packages: all.slice(0, limit) };
    },
  });
}

/** `inspect_android_device_package`: versions, SDK levels, install facts, APK paths and requested permissions. */
export function inspectPackageTool(env: EnvironmentSource) {
  return defineTool({
    name: 'inspect_android_device_package',
    title: 'Inspect an installed Android package',
    description:
      'Reads what a device knows of an installed package: version, SDK levels, install times, installer, flags, requested permissions and its APK paths (base and splits). Read-only; pull_android_file copies the APKs.',
    input: z.object({ serial: serialInput, package: packageInput }),
    result: z.object({
      serial: z.string(),
      package: z.string(),
      apk_paths: z.array(z.string()),
      version_name: z.string().nullable(),
      version_code: z.number().nullable(),
      min_sdk: z.number().nullable(),
      target_sdk: z.number().nullable(),
      first_install_time: z.string().nullable(),
      last_update_time: z.string().nullable(),
      installer: z.string().nullable(),
      flags: z.array(z.string()),
      requested_permissions: z.array(z.string()),
    }),
    examples: [{ input: { package: 'com.android.settings' }, description: 'The Settings app.' }],
    effects: { ...READS_DEVICE, idempotent: true },
    produces: 'result',
    run: async ({ serial, package: name }, context) => {
      const { shell, serial: chosen } = await openDevice(env, context, serial);
      const apk_paths = await packagePaths(shell, name);
      const dump = parsePackageDump(await shell.text('Reading the package', ['dumpsys', 'package', name]));
      return { serial: chosen, package: name, apk_paths, ...dump };
    },
  });
}

import { z } from 'zod';
import { defineTool } from '@rea/provider-kit';
import { listDevices } from '../devices.js';
import { locateAdb } from '../locate.js';
import { parseDisplay, parseFeatures, parseLegacyProcesses, parseProcesses, parseProperties } from '../parse.js';
import { READS_DEVICE, openDevice, serialInput } from './common.js';
import type { EnvironmentSource } from './common.js';

const nullableText = z.string().nullable();

/** `list_android_devices`: the devices the adb server has attached. */
export function listDevicesTool(env: EnvironmentSource) {
  return defineTool({
    name: 'list_android_devices',
    title: 'List Android devices',
    description:
      'Lists the devices the running adb server has attached (serial, state, model). Uses the adb the user has; never starts an adb server or an emulator.',
    input: z.object({}),
    result: z.object({
      adb: z.object({ path: z.string(), source: z.string(), server: z.string() }),
      devices: z.array(
        z.object({
          serial: z.string(),
          state: z.string(),
          model: nullableText,
          product: nullableText,
          device: nullableText,
          transport_id: nullableText,
        }),
      ),
    }),
    examples: [{ input: {}, description: 'List attached devices.' }],
    effects: { ...READS_DEVICE, idempotent: true },
    produces: 'result',
    run: async (_input, context) => {
      const adb = locateAdb(env());
      const devices = await listDevices(adb, context);
      return { adb: { path: adb.path, source: adb.source, server: adb.serverSocket }, devices };
    },
  });
}

const FACETS = ['properties', 'features', 'display', 'processes'] as const;
const SUMMARY_KEYS = {
  manufacturer: 'ro.product.manufacturer',
  model: 'ro.product.model',
  android_version: 'ro.build.version.release',
  sdk: 'ro.build.version.sdk',
  abis: 'ro.product.cpu.abilist',
  fingerprint: 'ro.build.fingerprint',
} as const;

/** `inspect_android_device`: a summary, plus the facets asked for (properties, features, display, processes). */
export function inspectDeviceTool(env: EnvironmentSource) {
  return defineTool({
    name: 'inspect_android_device',
    title: 'Inspect an Android device',
    description:
      'Reads one device: a summary (model, Android version, SDK, ABIs) and the facets asked for: system properties, features, display size and density, running processes. Read-only.',
    input: z.object({
      serial: serialInput,
      facets: z.array(z.enum(FACETS)).default(['display']).describe('What to read besides the summary.'),
    }),
    result: z.object({
      serial: z.string(),
      summary: z.record(z.string(), nullableText),
      properties: z.record(z.string(), z.string()).optional(),
      features: z.array(z.string()).optional(),
      display: z
        .object({
          width: z.number().nullable(),
          height: z.number().nullable(),
          density: z.number().nullable(),
          override_size: nullableText,
          override_density: z.number().nullable(),
        })
        .optional(),
      processes: z
        .array(z.object({ pid: z.number(), ppid: z.number(), user: z.string(), name: z.string() }))
        .optional(),
    }),
    examples: [
      {
        input: { facets: ['display', 'features'] },
        description: 'Summary, display and features of the one attached device.',
      },
    ],
    effects: { ...READS_DEVICE, idempotent: true },
    produces: 'result',
    run: async ({ serial, facets }, context) => {
      const { shell, serial: chosen } = await openDevice(env, context, serial);
      const properties = parseProperties(await shell.text('Reading properties', ['getprop']));
      const summary = Object.fromEntries(
        Object.entries(SUMMARY_KEYS).map(([key, prop]) => [key, properties[prop] ?? null]),
      );
      const wanted = new Set(facets);
      return {
        serial: chosen,
        summary,
        ...(wanted.has('properties') ? { properties } : {}),
        ...(wanted.has('features')
          ? { features: parseFeatures(await shell.text('Listing features', ['pm', 'list', 'features'])) }
          : {}),
        ...(wanted.has('display')
          ? {
              display: parseDisplay(
                (await shell.text('Reading the display', ['wm', 'size'])) +
                  (await shell.text('Reading the display', ['wm', 'density'])),
              ),
            }
          : {}),
        ...(wanted.has('processes')
          ? {
              // Android 8 brought toybox ps (-A, -o); before it, toolbox ps lists every process as is.
              processes:
                ((await shell.sdk()) ?? Infinity) < 26
                  ? parseLegacyProcesses(await shell.text('Listing processes', ['ps']))
                  : parseProcesses(await shell.text('Listing processes', ['ps', '-A', '-o', 'PID,PPID,USER,NAME'])),
            }
          : {}),
      };
    },
  });
}

import { z } from 'zod';
import { NO_EFFECTS } from '@rea/provider-kit';
import type { ToolContext, ToolEffects } from '@rea/provider-kit';
import { resolveSerial } from '../devices.js';
import { locateAdb } from '../locate.js';
import type { AdbLocation } from '../locate.js';
import { deviceShell } from '../shell.js';
import type { DeviceShell } from '../shell.js';

/** Where the device tools read their environment (adb location, server address, settings). */
export type EnvironmentSource = () => Readonly<Record<string, string | undefined>>;

/** The serial input every device operation takes. */
export const serialInput = z
  .string()
  .min(1)
  .optional()
  .describe('Device serial from list_android_devices; required when more than one device is attached.');

/** Reads adb state from a device: starts adb, changes nothing. */
export const READS_DEVICE: Readonly<ToolEffects> = Object.freeze({
  ...NO_EFFECTS,
  readOnly: true,
  launchesProcess: true,
  openWorld: true,
});

/** Copies from a device into local files. */
export const COPIES_FROM_DEVICE: Readonly<ToolEffects> = Object.freeze({
  ...NO_EFFECTS,
  writesFilesystem: true,
  launchesProcess: true,
  openWorld: true,
});

/** Changes the attached device (destructive by derivation). */
export const CHANGES_DEVICE: Readonly<ToolEffects> = Object.freeze({
  ...NO_EFFECTS,
  mutatesDevice: true,
  launchesProcess: true,
  openWorld: true,
});

/** The adb location and the one device a call runs on. */
export interface DeviceCall {
  adb: AdbLocation;
  serial: string;
  shell: DeviceShell;
}

/** Finds adb, resolves the serial (ambiguity and absence are typed errors) and opens the device's shell. */
export async function openDevice(
  env: EnvironmentSource,
  context: ToolContext,
  serial: string | undefined,
): Promise<DeviceCall> {
  const adb = locateAdb(env());
  const resolved = await resolveSerial(adb, context, serial);
  return { adb, serial: resolved, shell: deviceShell(adb, context, resolved) };
}

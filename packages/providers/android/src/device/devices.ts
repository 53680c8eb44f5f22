import { ReaError } from '@rea/evidence';
import type { ToolContext } from '@rea/provider-kit';
import { adbFailed, runAdb } from './adb.js';
import type { AdbLocation } from './locate.js';

/** One device as the adb server lists it. */
export interface AttachedDevice {
  serial: string;
  /** device, offline, unauthorized, bootloader, recovery, no permissions, … */
  state: string;
  model: string | null;
  product: string | null;
  device: string | null;
  transport_id: string | null;
}

/** Parses `adb devices -l`. */
export function parseDeviceList(text: string): AttachedDevice[] {
  const devices: AttachedDevice[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('List of devices') || line.startsWith('* ')) continue;
    const match = /^(\S+)\s+(no permissions.*?(?=\s+\w+:\S|$)|\S+)(.*)$/.exec(line.trimEnd());
    if (!match) continue;
    const fields = new Map<string, string>();
    for (const pair of match[3]!.trim().split(/\s+/)) {
      const at = pair.indexOf(':');
      if (at > 0) fields.set(pair.slice(0, at), pair.slice(at + 1));
    }
    devices.push({
      serial: match[1]!,
      state: match[2]!,
      model: fields.get('model') ?? null,
      product: fields.get('product') ?? null,
      device: fields.get('device') ?? null,
      transport_id: fields.get('transport_id') ?? null,
    });
  }
  return devices;
}

/** The devices the adb server has attached. */
export async function listDevices(
  adb: AdbLocation,
  context: Pick<ToolContext, 'supervisor' | 'signal'>,
): Promise<AttachedDevice[]> {
  const run = await runAdb(adb, context, ['devices', '-l']);
  if (run.exitCode !== 0) throw adbFailed('Listing devices', run, 'the adb server');
  return parseDeviceList(run.stdout.toString('utf8'));
}

function unusable(device: AttachedDevice): ReaError {
  if (device.state === 'unauthorized') {
    return new ReaError('access_denied', `Device ${device.serial} has not authorized this computer.`, {
      remediation: 'Accept the USB debugging prompt on the device, then call again.',
      details: { resource: device.serial, reason: 'device-unauthorized' },
    });
  }
  return new ReaError('target_unavailable', `Device ${device.serial} is ${device.state}, not ready for commands.`, {
    remediation: 'Wait for the device to finish connecting (or reconnect it), then call again.',
    details: { target: device.serial, reason: 'device-not-ready', state: device.state },
  });
}

/**
 * The serial a device operation runs on. A named serial must be attached and ready; without one,
 * exactly one device must be attached: none is `target_unavailable`, several are `invalid_request`
 * (`details.reason: "ambiguous-device"`, `details.serials`), so an operation never lands on a device
 * the caller did not choose.
 */
export async function resolveSerial(
  adb: AdbLocation,
  context: Pick<ToolContext, 'supervisor' | 'signal'>,
  serial: string | undefined,
): Promise<string> {
  const devices = await listDevices(adb, context);
  const serials = devices.map((d) => d.serial);
  if (serial !== undefined) {
    const device = devices.find((d) => d.serial === serial);
    if (!device) {
      throw new ReaError('target_unavailable', `No attached device has serial ${serial}.`, {
        remediation:
          serials.length > 0
            ? `Pass one of the attached serials: ${serials.join(', ')}.`
            : 'Attach the device (and enable USB debugging), then call again.',
        details: { target: serial, reason: 'device-not-found', serials },
      });
    }
    if (device.state !== 'device') throw unusable(device);
    return serial;
  }
  if (devices.length === 0) {
    throw new ReaError('target_unavailable', 'No Android device is attached to the adb server.', {
      remediation: 'Attach a device with USB debugging enabled (or start an emulator yourself), then call again.',
      details: { target: null, reason: 'no-device', serials },
    });
  }
  if (devices.length > 1) {
    throw new ReaError(
      'invalid_request',
      `${devices.length} devices are attached; name one with serial: ${serials.join(', ')}.`,
      {
        remediation: 'Pass serial with one of the listed serials.',
        details: { reason: 'ambiguous-device', serials },
      },
    );
  }
  if (devices[0]!.state !== 'device') throw unusable(devices[0]!);
  return devices[0]!.serial;
}

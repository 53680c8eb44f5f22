import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { isReaError } from '@rea/evidence';
import { serverSocketOf } from '../../src/device/locate.js';
import { parseDeviceList } from '../../src/device/devices.js';
import { createAndroidDeviceProvider } from '../../src/index.js';

describe('serverSocketOf', () => {
  it('should give the client a 127.0.0.1 address for every local form, so it never starts a server', () => {
    expect(serverSocketOf({})).toBe('tcp:127.0.0.1:5037');
    expect(serverSocketOf({ ANDROID_ADB_SERVER_PORT: '5099' })).toBe('tcp:127.0.0.1:5099');
    expect(serverSocketOf({ ADB_SERVER_SOCKET: 'tcp:6000' })).toBe('tcp:127.0.0.1:6000');
    expect(serverSocketOf({ ADB_SERVER_SOCKET: 'tcp:localhost:6001' })).toBe('tcp:127.0.0.1:6001');
    expect(serverSocketOf({ ADB_SERVER_SOCKET: 'tcp:build-host:5037' })).toBe('tcp:build-host:5037');
  });

  it('should refuse a server address that is not TCP', () => {
    let error: unknown = null;
    try {
      serverSocketOf({ ADB_SERVER_SOCKET: 'localabstract:adb' });
    } catch (caught) {
      error = caught;
    }
    expect(isReaError(error) && [error.code, error.details['reason']]).toEqual([
      'capability_unavailable',
      'unsupported-server-socket',
    ]);
  });
});

describe('parseDeviceList', () => {
  it('should read serials, states (including "no permissions") and the -l fields', () => {
    const text = [
      'List of devices attached',
      'emulator-5554          device product:sdk_gphone64 model:sdk_gphone64_x86_64 device:emu64x transport_id:3',
      '0123456789ABCDEF       no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:4',
      '192.168.1.20:5555      offline transport_id:5',
      '',
    ].join('\n');
    expect(parseDeviceList(text).map((d) => [d.serial, d.state, d.model, d.transport_id])).toEqual([
      ['emulator-5554', 'device', 'sdk_gphone64_x86_64', '3'],
      ['0123456789ABCDEF', expect.stringMatching(/^no permissions \(missing udev rules/), null, '4'],
      ['192.168.1.20:5555', 'offline', null, '5'],
    ]);
  });
});

describe('createAndroidDeviceProvider', () => {
  it('should report the version its package manifest states', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(createAndroidDeviceProvider({ env: {} }).version).toBe(manifest.version);
  });
});

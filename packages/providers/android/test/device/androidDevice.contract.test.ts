// The provider contract for the Android device provider, run through the real adb client against the
// STAND-IN adb server (support/standInAdbServer.ts): every tool example runs to a result on the
// scripted device, and no call leaves a process behind.
import { afterAll, beforeAll, expect } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import { createAndroidDeviceProvider } from '../../src/index.js';
import { BASE_APK, scriptedDevice } from './support/scriptedDevice.js';
import { startStandInAdbServer } from './support/standInAdbServer.js';
import type { StandInAdbServer } from './support/standInAdbServer.js';

const dir = mkdtempSync(join(tmpdir(), 'rea-adb-contract-'));
const env: Record<string, string | undefined> = { PATH: process.env['PATH'] };
let server: StandInAdbServer;
beforeAll(async () => {
  server = await startStandInAdbServer([scriptedDevice('STANDIN01')]);
  env['ADB_SERVER_SOCKET'] = server.socketSpec;
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function fixture(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Every adb process of the last call has ended. */
function nothingLeft(context: CapabilityCheckContext): void {
  for (const observation of context.lastCallLineage()) {
    if (observation.status === 'verified')
      expect(observation).toMatchObject({ launcher_alive: false, descendants: [] });
  }
}

describeProviderContract('android-device (adb, stand-in server)', () => createAndroidDeviceProvider({ env }), {
  exampleInput: (tool, input) => {
    const example = input as Record<string, unknown>;
    if (tool === 'push_android_file') return { ...example, local_path: fixture('sample.txt', Buffer.from('sample\n')) };
    if (tool === 'install_android_package') return { ...example, apk_paths: [fixture('app.apk', BASE_APK)] };
    if (tool === 'uninstall_android_package') return { ...example, package: 'com.example.notes' };
    if (tool === 'read_android_logcat') return { ...example, max_lines: 3 };
    return example;
  },
  afterExample: (_tool, outcome) => {
    // Pulls and screenshots made fresh directories; remove them.
    const value = (outcome.kind === 'result' ? outcome.value : null) as {
      output_directory?: string;
      local_path?: string;
    } | null;
    if (value?.output_directory) rmSync(value.output_directory, { recursive: true, force: true });
    else if (value?.local_path) rmSync(dirname(value.local_path), { recursive: true, force: true });
  },
  capabilityProbes: {
    'android-device-read': async (context) => {
      const listed = await context.runTool('list_android_devices', {});
      expect(listed).toMatchObject({ kind: 'result', value: { devices: [{ serial: 'STANDIN01', state: 'device' }] } });
      nothingLeft(context);
      const pulled = await context.runTool('pull_android_file', {
        path: '/sdcard/notes.txt',
        output_directory: mkdtempSync(join(dir, 'pull-')),
      });
      expect(pulled).toMatchObject({ value: { files: [{ size: 23 }] } });
      nothingLeft(context);
    },
    'android-device-change': async (context) => {
      await expect(context.runTool('stop_android_app', { package: 'com.android.settings' })).resolves.toMatchObject({
        value: { package: 'com.android.settings' },
      });
      nothingLeft(context);
      await expect(
        context.runTool('uninstall_android_package', { package: 'com.example.absent' }),
      ).rejects.toMatchObject({ code: 'execution_failure' });
      nothingLeft(context);
    },
  },
});

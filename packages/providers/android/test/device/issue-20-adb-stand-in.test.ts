/* eslint-disable @typescript-eslint/no-explicit-any -- tool results are JSON explored by path in assertions */
// Device operations driven through the REAL adb client (Debian's `adb`) against a STAND-IN adb server
// on 127.0.0.1 (support/standInAdbServer.ts). This proves what REA sends to adb and how it reads the
// answers; it is not evidence that any operation works on a device (see realDevice.engine.test.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { AnyToolContract } from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';
import { createAndroidDeviceProvider } from '../../src/index.js';
import { BASE_APK, PROPERTIES, SCREEN_PNG, SPLIT_APK, scriptedDevice } from './support/scriptedDevice.js';
import { startStandInAdbServer } from './support/standInAdbServer.js';
import type { StandInAdbServer } from './support/standInAdbServer.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const work = mkdtempSync(join(tmpdir(), 'rea-adb-test-'));
let server: StandInAdbServer;

beforeAll(async () => {
  server = await startStandInAdbServer([scriptedDevice('STANDIN01')]);
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

/** Runs a tool of a provider whose adb talks to `socket` (default: the stand-in). */
async function call(name: string, input: unknown, env: Record<string, string | undefined> = {}): Promise<any> {
  const provider = createAndroidDeviceProvider({
    env: { PATH: process.env['PATH'], ADB_SERVER_SOCKET: server.socketSpec, ...env },
  });
  const tool = provider.tools().find((t) => t.name === name) as AnyToolContract;
  const outcome = await executeTool(tool, input, quietToolContext());
  return outcome.kind === 'result' ? outcome.value : outcome.record;
}
const failure = (promise: Promise<unknown>) => promise.then(() => null).catch((e: unknown) => e);

describe('adb device operations against the stand-in server', () => {
  it('should list the attached devices with their state and model', async () => {
    server.devices.push({ serial: 'LOCKED02', state: 'unauthorized' });
    try {
      const result = await call('list_android_devices', {});
      expect(result.devices).toEqual([
        expect.objectContaining({ serial: 'STANDIN01', state: 'device', model: 'Stand_In_1' }),
        expect.objectContaining({ serial: 'LOCKED02', state: 'unauthorized' }),
      ]);
      expect(result.adb.server).toBe(server.socketSpec);
      // An unauthorized device named by serial is access_denied, not a failed command.
      const error = await failure(call('inspect_android_device', { serial: 'LOCKED02' }));
      expect(isReaError(error) && [error.code, error.details['reason']]).toEqual([
        'access_denied',
        'device-unauthorized',
      ]);
    } finally {
      server.devices.splice(1);
    }
  });

  it('should inspect a device through shell commands', async () => {
    const result = await call('inspect_android_device', { facets: ['properties', 'features', 'display', 'processes'] });
    expect(result.summary).toMatchObject({
      model: 'Stand In 1',
      android_version: '14',
      sdk: '34',
      abis: 'arm64-v8a,armeabi-v7a',
    });
    expect(result.properties).toEqual(PROPERTIES);
    expect(result.features).toEqual(['android.hardware.camera', 'android.hardware.wifi', 'reqGlEsVersion=0x30002']);
    expect(result.display).toEqual({
      width: 1080,
      height: 2400,
      density: 420,
      override_size: '720x1600',
      override_density: null,
    });
    expect(result.processes).toContainEqual({ pid: 4242, ppid: 640, user: 'u0_a123', name: 'com.example.notes' });
    // The serial is always named, and commands go through the shell protocol v2 (exit statuses kept).
    expect(server.requests).toContain('host:tport:serial:STANDIN01');
    expect(server.requests).toContain('shell,v2,TERM=xterm,raw:wm density');
  });

  it('should list and inspect packages', async () => {
    const listed = await call('list_android_packages', { third_party_only: true });
    expect(listed).toMatchObject({
      total: 1,
      truncated: false,
      packages: [{ package: 'com.example.notes', uid: 10123 }],
    });
    const all = await call('list_android_packages', { limit: 2 });
    expect([all.total, all.truncated, all.packages.map((p: any) => p.package)]).toEqual([
      3,
      true,
      ['com.android.camera2', 'com.android.settings'],
    ]);
    const inspected = await call('inspect_android_device_package', { package: 'com.android.settings' });
    expect(inspected).toMatchObject({
      apk_paths: [
        '/data/app/~~f00/com.android.settings-1/base.apk',
        '/data/app/~~f00/com.android.settings-1/split_config.en.apk',
      ],
      version_name: '14',
      version_code: 34,
      target_sdk: 34,
      flags: ['SYSTEM', 'HAS_CODE', 'ALLOW_CLEAR_USER_DATA'],
      requested_permissions: ['android.permission.INTERNET', 'android.permission.WRITE_SETTINGS'],
    });
    const missing = await failure(call('inspect_android_device_package', { package: 'com.example.gone' }));
    expect(isReaError(missing) && missing.code).toBe('not_found');
  });

  it('should read logcat bounded, without the buffer banner', async () => {
    const result = await call('read_android_logcat', { max_lines: 3, min_priority: 'W' });
    expect(result.lines).toHaveLength(3);
    expect(result.lines[1]).toContain('FATAL EXCEPTION');
  });

  it('should list a directory through the sync service and refuse a missing one', async () => {
    const result = await call('list_android_directory', { path: '/sdcard' });
    expect(result.entries).toEqual([
      { name: 'Download', type: 'directory', mode: '0771', size: 4096, mtime: 1_700_000_000 },
      { name: 'notes.txt', type: 'file', mode: '0644', size: 23, mtime: 1_700_000_000 },
    ]);
    expect(server.requests).toContain('sync LIST /sdcard');
    const error = await failure(call('list_android_directory', { path: '/nope' }));
    expect(isReaError(error) && error.code).toBe('not_found');
  });
});

describe('adb file transfer against the stand-in server', () => {
  it('should pull a file into a fresh directory with its digest', async () => {
    const result = await call('pull_android_file', { path: '/system/etc/hosts' });
    try {
      const expected = server.devices[0]!.files!.get('/system/etc/hosts')!.data!;
      expect(result.files).toEqual([
        {
          remote_path: '/system/etc/hosts',
          local_path: join(result.output_directory, 'hosts'),
          size: expected.length,
          sha256: sha256(expected),
        },
      ]);
      expect(readFileSync(result.files[0].local_path)).toEqual(expected);
      expect(readdirSync(result.output_directory)).toEqual(['hosts']);
    } finally {
      rmSync(result.output_directory, { recursive: true, force: true });
    }
  });

  it('should pull every APK of a package into a stated directory, never overwriting', async () => {
    const out = mkdtempSync(join(work, 'pkg-'));
    const result = await call('pull_android_file', { package: 'com.android.settings', output_directory: out });
    expect(result.files.map((f: any) => [f.local_path, f.sha256])).toEqual([
      [join(out, 'base.apk'), sha256(BASE_APK)],
      [join(out, 'split_config.en.apk'), sha256(SPLIT_APK)],
    ]);
    const again = await failure(
      call('pull_android_file', { path: '/sdcard/notes.txt', output_directory: out }).then(() =>
        call('pull_android_file', { package: 'com.android.settings', output_directory: out }),
      ),
    );
    expect(isReaError(again) && [again.code, again.details['reason']]).toEqual(['invalid_request', 'output-exists']);
    // The refused call removed what it had written; the earlier files are untouched.
    expect(readdirSync(out).sort()).toEqual(['base.apk', 'notes.txt', 'split_config.en.apk']);
    expect(readFileSync(join(out, 'base.apk'))).toEqual(BASE_APK);
  });

  it('should leave no file when the device disappears mid-pull', async () => {
    const big = Buffer.alloc(400_000, 0x5a);
    const vanishing = scriptedDevice('VANISH03', { vanishDuringPullOf: '/sdcard/big.bin' });
    vanishing.files!.set('/sdcard/big.bin', { mode: 0o100644, data: big, mtime: 1 });
    const solo = await startStandInAdbServer([vanishing]);
    const out = mkdtempSync(join(work, 'vanish-'));
    try {
      const error = await failure(
        call(
          'pull_android_file',
          { path: '/sdcard/big.bin', output_directory: out },
          { ADB_SERVER_SOCKET: solo.socketSpec },
        ),
      );
      expect(isReaError(error) && [error.code, error.details['reason'], error.details['target']]).toEqual([
        'target_unavailable',
        'device-disconnected',
        'VANISH03',
      ]);
      // The transfer had started: the client received data before the device went.
      expect(solo.requests).toContain('sync RECV /sdcard/big.bin');
      expect(readdirSync(out)).toEqual([]);
      // A package whose base APK arrived and whose split did not: the base is removed too.
      solo.devices.push(
        scriptedDevice('VANISH04', {
          vanishDuringPullOf: '/data/app/~~f00/com.android.settings-1/split_config.en.apk',
        }),
      );
      const split = await failure(
        call(
          'pull_android_file',
          { package: 'com.android.settings', output_directory: out },
          { ADB_SERVER_SOCKET: solo.socketSpec },
        ),
      );
      expect(isReaError(split) && split.details['reason']).toBe('device-disconnected');
      expect(solo.requests).toContain('sync RECV /data/app/~~f00/com.android.settings-1/base.apk');
      expect(readdirSync(out)).toEqual([]);
    } finally {
      await solo.close();
    }
  });

  it('should leave no file when a pull is cancelled mid-transfer', async () => {
    const stalling = scriptedDevice('STALL05', { stallDuringPullOf: '/sdcard/big.bin' });
    stalling.files!.set('/sdcard/big.bin', { mode: 0o100644, data: Buffer.alloc(400_000, 0x33), mtime: 1 });
    const solo = await startStandInAdbServer([stalling]);
    const out = mkdtempSync(join(work, 'cancel-'));
    const controller = new AbortController();
    solo.stalled = () => setTimeout(() => controller.abort(), 200);
    try {
      const provider = createAndroidDeviceProvider({
        env: { PATH: process.env['PATH'], ADB_SERVER_SOCKET: solo.socketSpec },
      });
      const tool = provider.tools().find((t) => t.name === 'pull_android_file')!;
      const context = quietToolContext({ signal: controller.signal });
      const error = await failure(executeTool(tool, { path: '/sdcard/big.bin', output_directory: out }, context));
      expect(isReaError(error) && error.code).toBe('cancelled');
      expect(readdirSync(out)).toEqual([]);
      expect(context.supervisor.owned()).toEqual([]);
    } finally {
      await solo.close();
    }
  });

  it('should refuse a missing remote file as not_found and remove its fresh directory', async () => {
    const before = readdirSync(tmpdir()).filter((n) => n.startsWith('rea-android-pull-'));
    const error = await failure(call('pull_android_file', { path: '/sdcard/absent.txt' }));
    expect(isReaError(error) && error.code).toBe('not_found');
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith('rea-android-pull-'))).toEqual(before);
  });

  it('should refuse to pull a directory, leaving nothing', async () => {
    const out = mkdtempSync(join(work, 'dir-'));
    const error = await failure(call('pull_android_file', { path: '/sdcard', output_directory: out }));
    expect(isReaError(error) && [error.code, error.details['reason']]).toEqual(['invalid_request', 'is-a-directory']);
    expect(readdirSync(out)).toEqual([]);
  });

  it('should push a file and capture the screen', async () => {
    const local = join(work, 'upload.bin');
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    writeFileSync(local, bytes);
    const pushed = await call('push_android_file', { local_path: local, remote_path: '/data/local/tmp/upload.bin' });
    expect(pushed).toEqual({ serial: 'STANDIN01', remote_path: '/data/local/tmp/upload.bin', size: bytes.length });
    expect(server.devices[0]!.files!.get('/data/local/tmp/upload.bin')!.data).toEqual(bytes);
    const screen = await call('capture_android_screen', { output_directory: work });
    expect(readFileSync(screen.local_path)).toEqual(SCREEN_PNG);
    expect(screen.sha256).toBe(sha256(SCREEN_PNG));
  });
});

describe('device-changing operations against the stand-in server', () => {
  it('should stream an install and report the package manager failure code', async () => {
    const apk = join(work, 'app.apk');
    writeFileSync(apk, BASE_APK);
    server.installs.length = 0;
    await expect(call('install_android_package', { apk_paths: [apk], replace: true })).resolves.toEqual({
      serial: 'STANDIN01',
      installed: [apk],
    });
    expect(server.installs).toEqual([{ serial: 'STANDIN01', bytes: BASE_APK }]);
    server.devices[0]!.installReply = 'Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected]\n';
    try {
      const error = await failure(call('install_android_package', { apk_paths: [apk] }));
      expect(isReaError(error) && [error.code, error.details['failure']]).toEqual([
        'execution_failure',
        'INSTALL_FAILED_VERSION_DOWNGRADE',
      ]);
    } finally {
      delete server.devices[0]!.installReply;
    }
  });

  it('should uninstall, start and stop apps', async () => {
    await expect(call('uninstall_android_package', { package: 'com.example.notes' })).resolves.toEqual({
      serial: 'STANDIN01',
      package: 'com.example.notes',
    });
    const refused = await failure(call('uninstall_android_package', { package: 'com.example.absent' }));
    expect(isReaError(refused) && [refused.code, refused.details['failure']]).toEqual([
      'execution_failure',
      'DELETE_FAILED_INTERNAL_ERROR',
    ]);
    await expect(call('start_android_app', { package: 'com.android.settings' })).resolves.toEqual({
      serial: 'STANDIN01',
      component: 'com.android.settings/.Settings',
      status: 'ok',
    });
    const missing = await failure(call('start_android_app', { package: 'com.android.settings', activity: '.Missing' }));
    expect(isReaError(missing) && missing.code).toBe('execution_failure');
    await expect(call('stop_android_app', { package: 'com.android.settings' })).resolves.toEqual({
      serial: 'STANDIN01',
      package: 'com.android.settings',
    });
  });

  it('should mark exactly the device-changing tools destructive', () => {
    const annotations = Object.fromEntries(
      createAndroidDeviceProvider()
        .tools()
        .map((t) => [t.name, t.annotations.destructiveHint]),
    );
    const destructive = Object.keys(annotations)
      .filter((name) => annotations[name])
      .sort();
    expect(destructive).toEqual([
      'install_android_package',
      'push_android_file',
      'start_android_app',
      'stop_android_app',
      'uninstall_android_package',
    ]);
  });
});

describe('device selection and adb availability', () => {
  it('should refuse two devices without a serial, listing both, and run with one named', async () => {
    server.devices.push(scriptedDevice('STANDIN02'));
    try {
      for (const [tool, input] of [
        ['inspect_android_device', {}],
        ['pull_android_file', { path: '/system/etc/hosts' }],
        ['stop_android_app', { package: 'com.android.settings' }],
      ] as const) {
        const error = await failure(call(tool, input));
        expect(isReaError(error) && [error.code, error.details['reason'], error.details['serials']]).toEqual([
          'invalid_request',
          'ambiguous-device',
          ['STANDIN01', 'STANDIN02'],
        ]);
      }
      const named = await call('inspect_android_device', { serial: 'STANDIN02', facets: [] });
      expect(named.serial).toBe('STANDIN02');
      const unknown = await failure(call('inspect_android_device', { serial: 'NOPE' }));
      expect(isReaError(unknown) && [unknown.code, unknown.details['serials']]).toEqual([
        'target_unavailable',
        ['STANDIN01', 'STANDIN02'],
      ]);
    } finally {
      server.devices.splice(1);
    }
  });

  it('should answer capability_unavailable with a remedy when adb is absent, and find it through ANDROID_HOME', async () => {
    const empty = mkdtempSync(join(work, 'empty-'));
    const error = await failure(call('list_android_devices', {}, { PATH: empty }));
    expect(isReaError(error) && [error.code, error.details['reason']]).toEqual([
      'capability_unavailable',
      'adb-not-found',
    ]);
    expect(isReaError(error) && error.remediation).toMatch(/ANDROID_HOME/);
    const probe = await createAndroidDeviceProvider({ env: { PATH: empty } }).probe();
    expect(probe.status).toBe('unavailable');
    const explicit = await failure(call('list_android_devices', {}, { REA_ADB_PATH: join(empty, 'adb') }));
    expect(isReaError(explicit) && explicit.code).toBe('capability_unavailable');
    // An SDK whose platform-tools holds adb (a link to the installed client).
    const sdk = mkdtempSync(join(work, 'sdk-'));
    const { mkdirSync, symlinkSync } = await import('node:fs');
    mkdirSync(join(sdk, 'platform-tools'));
    const { execFileSync } = await import('node:child_process');
    symlinkSync(execFileSync('sh', ['-c', 'command -v adb']).toString().trim(), join(sdk, 'platform-tools', 'adb'));
    const found = await call('list_android_devices', {}, { PATH: empty, ANDROID_HOME: sdk });
    expect([found.adb.source, found.devices.map((d: any) => d.serial)]).toEqual(['ANDROID_HOME', ['STANDIN01']]);
  });

  it('should answer capability_unavailable when no adb server runs, and never start one', async () => {
    const closed = await startStandInAdbServer([]);
    const port = closed.port;
    await closed.close();
    for (const spec of [`tcp:${port}`, `tcp:localhost:${port}`]) {
      const error = await failure(call('list_android_devices', {}, { ADB_SERVER_SOCKET: spec }));
      expect(isReaError(error) && [error.code, error.details['reason']]).toEqual([
        'capability_unavailable',
        'adb-server-not-running',
      ]);
    }
    // Had the client started a server it would be listening on the port now.
    const { connect } = await import('node:net');
    const refused = await new Promise<boolean>((resolve) =>
      connect(port, '127.0.0.1')
        .on('connect', function (this: any) {
          this.destroy();
          resolve(false);
        })
        .on('error', () => resolve(true)),
    );
    expect(refused).toBe(true);
  });
});

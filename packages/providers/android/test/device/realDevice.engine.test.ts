/* eslint-disable @typescript-eslint/no-explicit-any -- tool results are JSON explored by path in assertions */
// The read-only device operations against a REAL attached device, cross-checked with adb run directly.
// Runs only when adb is installed, an adb server is already running and a device is attached and
// authorized; otherwise it is skipped with the reason printed. (The stand-in server suites prove the
// protocol handling; only this suite says anything about a device.)
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeTool } from '@rea/provider-kit';
import { quietToolContext, skipUnless } from '@rea/test-helpers';
import { createAndroidDeviceProvider } from '../../src/index.js';

/** The attached device to use, or why there is none. Never starts an adb server (127.0.0.1 address). */
function attachedDevice(): { serial: string; adb: string; socket: string } | string {
  const which = spawnSync('sh', ['-c', 'command -v adb'], { encoding: 'utf8' });
  if (which.status !== 0) return 'adb is not installed';
  const adb = which.stdout.trim();
  const port = process.env['ANDROID_ADB_SERVER_PORT'] ?? '5037';
  const socket = /^tcp:[^:]+:\d+$/.test(process.env['ADB_SERVER_SOCKET'] ?? '')
    ? process.env['ADB_SERVER_SOCKET']!
    : `tcp:127.0.0.1:${port}`;
  const devices = spawnSync(adb, ['devices'], {
    encoding: 'utf8',
    env: { ...process.env, ADB_SERVER_SOCKET: socket },
    timeout: 20_000,
  });
  if (devices.status !== 0) return `no adb server is running at ${socket}`;
  const wanted = process.env['REA_TEST_ANDROID_SERIAL'];
  const online = devices.stdout
    .split('\n')
    .map((l) => l.split('\t'))
    .filter(([s, state]) => state === 'device' && (!wanted || s === wanted));
  if (online.length === 0)
    return 'no authorized Android device is attached (set REA_TEST_ANDROID_SERIAL to choose one)';
  return { serial: online[0]![0]!, adb, socket };
}

const device = attachedDevice();

skipUnless(typeof device === 'string' ? device : null)('read-only operations on a real device', () => {
  const { serial, adb, socket } = device as Exclude<typeof device, string>;
  let out = '';
  beforeAll(() => void (out = mkdtempSync(join(tmpdir(), 'rea-adb-real-'))));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  const direct = (...args: string[]) =>
    spawnSync(adb, ['-s', serial, ...args], { env: { ...process.env, ADB_SERVER_SOCKET: socket }, timeout: 60_000 })
      .stdout as Buffer;
  const provider = createAndroidDeviceProvider({ env: { ...process.env, ADB_SERVER_SOCKET: socket } });
  const call = async (name: string, input: Record<string, unknown>): Promise<any> => {
    const outcome = await executeTool(
      provider.tools().find((t) => t.name === name)!,
      { serial, ...input },
      quietToolContext(),
    );
    return outcome.kind === 'result' ? outcome.value : null;
  };

  it('should list and inspect the device as adb reports it', async () => {
    const listed = await executeTool(
      provider.tools().find((t) => t.name === 'list_android_devices')!,
      {},
      quietToolContext(),
    );
    expect(listed).toMatchObject({
      value: { devices: expect.arrayContaining([expect.objectContaining({ serial, state: 'device' })]) },
    });
    const inspected = await call('inspect_android_device', {
      facets: ['properties', 'features', 'display', 'processes'],
    });
    expect(inspected.summary.sdk).toBe(direct('shell', 'getprop', 'ro.build.version.sdk').toString().trim());
    expect(inspected.display.width).toBeGreaterThan(0);
    expect(inspected.processes.some((p: any) => p.pid === 1)).toBe(true);
  });

  it('should list and inspect the framework package and read the log', async () => {
    const listed = await call('list_android_packages', { contains: 'android', limit: 5000 });
    expect(listed.packages.map((p: any) => p.package)).toContain('android');
    const framework = await call('inspect_android_device_package', { package: 'android' });
    expect(framework.apk_paths.length).toBeGreaterThan(0);
    const log = await call('read_android_logcat', { max_lines: 5 });
    expect(log.lines.length).toBeLessThanOrEqual(5);
  });

  it('should list /system/etc, pull its hosts file and capture the screen', async () => {
    const listing = await call('list_android_directory', { path: '/system/etc' });
    expect(listing.entries.map((e: any) => e.name)).toContain('hosts');
    const pulled = await call('pull_android_file', { path: '/system/etc/hosts', output_directory: out });
    const bytes = direct('exec-out', 'cat', '/system/etc/hosts');
    expect(pulled.files[0].sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const screen = await call('capture_android_screen', { output_directory: out });
    expect(readFileSync(screen.local_path).subarray(1, 4).toString()).toBe('PNG');
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any -- tool results are JSON explored by path in assertions */
// Older handsets through the REAL adb client and the STAND-IN adb server (support/standInAdbServer.ts):
// Android 6 has no shell protocol v2, so its shell service reports no exit status and runs on a
// terminal; Android 6 and 7 have toolbox `ps` and no `cmd package resolve-activity`. This proves what
// REA sends and how it reads the answers, not that anything works on a device.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isReaError } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { AnyToolContract } from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';
import { createAndroidDeviceProvider } from '../../src/index.js';
import { PROPERTIES, olderDevice } from './support/scriptedDevice.js';
import { startStandInAdbServer } from './support/standInAdbServer.js';
import type { StandInAdbServer } from './support/standInAdbServer.js';

let server: StandInAdbServer;

beforeAll(async () => {
  server = await startStandInAdbServer([olderDevice('ANDROID6', 23), olderDevice('ANDROID7', 24)]);
});
afterAll(() => server.close());

async function call(name: string, input: unknown): Promise<any> {
  const provider = createAndroidDeviceProvider({
    env: { PATH: process.env['PATH'], ADB_SERVER_SOCKET: server.socketSpec },
  });
  const tool = provider.tools().find((t) => t.name === name) as AnyToolContract;
  const outcome = await executeTool(tool, input, quietToolContext());
  return outcome.kind === 'result' ? outcome.value : outcome.record;
}
const failure = (promise: Promise<unknown>) => promise.then(() => null).catch((e: unknown) => e);
const code = (error: unknown) => (isReaError(error) ? error.code : error);

describe.each(['ANDROID6', 'ANDROID7'])('an older device (%s) through the stand-in server', (serial) => {
  it('should read its properties and list its processes with toolbox ps', async () => {
    const result = await call('inspect_android_device', { serial, facets: ['properties', 'processes'] });
    expect(result.summary.sdk).toBe(serial === 'ANDROID6' ? '23' : '24');
    expect(result.properties['ro.product.model']).toBe(PROPERTIES['ro.product.model']);
    expect(result.processes).toEqual([
      { pid: 1, ppid: 0, user: 'root', name: '/init' },
      { pid: 812, ppid: 1, user: 'system', name: 'system_server' },
      { pid: 4242, ppid: 640, user: 'u0_a123', name: 'com.example.notes' },
    ]);
  });

  it('should see a failing command fail', async () => {
    expect(code(await failure(call('list_android_directory', { serial, path: '/nope' })))).toBe('not_found');
    expect(code(await failure(call('inspect_android_device_package', { serial, package: 'com.example.gone' })))).toBe(
      'not_found',
    );
    expect(code(await failure(call('stop_android_app', { serial, package: 'com.example.gone' })))).toBe(
      'execution_failure',
    );
    await expect(call('list_android_directory', { serial, path: '/sdcard' })).resolves.toMatchObject({ entries: [] });
    // Android 6 is asked for the status after the command over shell v1; Android 7 runs it over shell v2.
    const sent = server.requests.filter((r) => r.startsWith('shell') && r.includes('force-stop com.example.gone'));
    expect(sent).toContainEqual(
      serial === 'ANDROID6'
        ? expect.stringMatching(/^shell:am force-stop com\.example\.gone; echo \S+\$\?$/)
        : expect.stringMatching(/^shell,v2[^:]*:am force-stop com\.example\.gone$/),
    );
  });

  it('should start the launcher activity found in the resolver table', async () => {
    await expect(call('start_android_app', { serial, package: 'com.android.settings' })).resolves.toEqual({
      serial,
      component: 'com.android.settings/.Settings',
      status: 'ok',
    });
  });
});

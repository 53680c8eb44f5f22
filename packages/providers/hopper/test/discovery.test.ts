// Hopper discovery reads files only: the launcher's mode and the bundle's Info.plist.
import { afterAll, describe, expect, it } from '@jest/globals';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createStandinHopper, standinWorkspace } from '@rea/test-helpers';
import { createHopperProvider, discoverHopper } from '@rea/provider-hopper';

describe('Hopper discovery', () => {
  const space = standinWorkspace('hopper-discovery');
  afterAll(() => space.dispose());
  const { HOPPER_LAUNCHER_PATH: launcher } = createStandinHopper(space.dir, { mode: 'normal' });
  const plist = join(dirname(dirname(launcher)), 'Info.plist');

  it('finds the launcher and the bundle version, starting nothing', async () => {
    expect(discoverHopper(launcher)).toEqual({ status: 'ready', installation: { launcher, version: '5.19.3' } });
    expect(await createHopperProvider({ env: { HOPPER_LAUNCHER_PATH: launcher } }).probe()).toMatchObject({
      status: 'ready',
      version: '5.19.3',
    });
  });

  it('refuses a launcher that is not executable, has no bundle version, or is another major version', () => {
    chmodSync(launcher, 0o644);
    expect(discoverHopper(launcher)).toMatchObject({
      status: 'unavailable',
      reason: expect.stringMatching(/not an executable/),
    });
    chmodSync(launcher, 0o755);
    const original = readFileSync(plist, 'utf8');
    writeFileSync(plist, original.replace('5.19.3', '3.11.20'));
    expect(discoverHopper(launcher)).toMatchObject({
      status: 'unavailable',
      reason: expect.stringMatching(/3\.11\.20 is not supported/),
      remediation: expect.stringMatching(/HOPPER_LAUNCHER_PATH/),
    });
    writeFileSync(plist, '<plist></plist>');
    expect(discoverHopper(launcher)).toMatchObject({
      status: 'unavailable',
      reason: expect.stringMatching(/does not state its version/),
    });
    writeFileSync(plist, original);
  });
});

// A Linux Hopper install (`<dir>/bin/Hopper`, as `rea setup --hopper` unpacks the Linux packages) has
// no Info.plist. Discovery reads files only, so it reports the version as unknown with a stated
// limitation instead of refusing the install, and the provider starts the engine through it.
import { afterAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStandinLinuxHopper, bridgeOpenOptions, standinWorkspace } from '@rea/test-helpers';
import { HOPPER_UNKNOWN_VERSION_NOTE, createHopperProvider, discoverHopper } from '@rea/provider-hopper';

describe('Hopper on Linux (issue 21)', () => {
  const space = standinWorkspace('hopper-linux');
  afterAll(() => space.dispose());
  const env = createStandinLinuxHopper(space.dir, { mode: 'normal' });
  const launcher = env.HOPPER_LAUNCHER_PATH;

  it('finds a Linux install ready, with version unknown and the limitation stated', async () => {
    expect(discoverHopper(launcher)).toEqual({ status: 'ready', installation: { launcher, version: 'unknown' } });
    expect(await createHopperProvider({ env }).probe()).toEqual({
      status: 'ready',
      version: 'unknown',
      details: { launcher, limitation: HOPPER_UNKNOWN_VERSION_NOTE },
    });
    expect(HOPPER_UNKNOWN_VERSION_NOTE).toMatch(/does not run the launcher/);
  });

  it('still refuses an executable that is neither a bundle launcher nor a Linux bin/Hopper', () => {
    const other = join(space.dir, 'elsewhere', 'hopper');
    mkdirSync(join(space.dir, 'elsewhere'), { recursive: true });
    writeFileSync(other, '#!/bin/sh\nexit 0\n');
    chmodSync(other, 0o755);
    expect(discoverHopper(other)).toMatchObject({
      status: 'unavailable',
      reason: expect.stringMatching(/does not state its version/),
      remediation: expect.stringMatching(/bin\/Hopper/),
    });
  });

  it('opens a target through the Linux launcher and answers from the engine', async () => {
    const { options, supervisor } = bridgeOpenOptions(env);
    const session = await createHopperProvider({ env }).open(space.target, options);
    const signal = new AbortController().signal;
    try {
      const page = await session.session.procedures({ offset: 0, limit: 10 }, signal);
      expect(page.items.map((p) => p.name)).toEqual(['_start', 'main', 'helper']);
    } finally {
      await session.close(signal);
      await supervisor.closeAll();
    }
    expect(supervisor.owned()).toEqual([]);
  });
});

// Discovery reads files only; every mismatch is an unavailable probe and a provider_unavailable open,
// each with a remedy, and a concrete provider_id then fails selection naming the reason.
import { afterAll, describe, expect, it } from '@jest/globals';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStandinGhidra, bridgeOpenOptions, standinWorkspace } from '@rea/test-helpers';
import { createGhidraProvider, discoverGhidra } from '@rea/provider-ghidra';
import { createProviderRegistry, selectProvider } from '@rea/provider-kit';

describe('Ghidra discovery', () => {
  const space = standinWorkspace('ghidra-discovery');
  afterAll(() => space.dispose());
  const env = createStandinGhidra(space.dir, { mode: 'normal' });
  const props = join(env.GHIDRA_INSTALL_DIR, 'Ghidra', 'application.properties');

  it('finds a supported installation and its JDK', () => {
    expect(discoverGhidra(env)).toMatchObject({
      status: 'ready',
      installation: { version: '11.3.1', javaVersion: '21.0.2', javaHome: env.JAVA_HOME },
    });
  });

  it('refuses an unset directory, an unsupported version and a JDK older than required', () => {
    expect(discoverGhidra({})).toMatchObject({ status: 'unavailable', reason: 'GHIDRA_INSTALL_DIR is not set' });
    writeFileSync(props, 'application.version=10.4\n');
    expect(discoverGhidra(env)).toMatchObject({
      status: 'unavailable',
      reason: expect.stringMatching(/10\.4 .*not supported/),
    });
    writeFileSync(props, 'application.version=11.3.1\napplication.java.min=21\n');
    writeFileSync(join(env.JAVA_HOME, 'release'), 'JAVA_VERSION="17.0.9"\n');
    const old = discoverGhidra(env);
    expect(old).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/needs JDK 21 .* 17\.0\.9/) });
    expect(old.status === 'unavailable' && old.remediation).toMatch(/Install JDK 21 .*JAVA_HOME/);
    rmSync(join(env.JAVA_HOME, 'release'));
    expect(discoverGhidra(env)).toMatchObject({
      status: 'unavailable',
      reason: expect.stringMatching(/does not state its version/),
    });
    writeFileSync(join(env.JAVA_HOME, 'release'), 'JAVA_VERSION="21.0.2"\n');
  });

  it('turns unavailability into a probe result, a provider_unavailable open and a selection failure', async () => {
    writeFileSync(props, 'application.version=13.0\n');
    try {
      const provider = createGhidraProvider({ env });
      const probe = await provider.probe();
      expect(probe).toMatchObject({ status: 'unavailable', remediation: expect.stringMatching(/GHIDRA_INSTALL_DIR/) });
      const { options, supervisor } = bridgeOpenOptions(env);
      await expect(provider.open(space.target, options)).rejects.toMatchObject({
        code: 'provider_unavailable',
        details: { provider_id: 'ghidra' },
      });
      expect(supervisor.processes()).toHaveLength(0);
      expect(() =>
        selectProvider({
          registry: createProviderRegistry([provider]),
          choice: { kind: 'concrete', id: 'ghidra' },
          source: 'argument',
          target: { format: 'elf' },
          probes: new Map([['ghidra', probe]]),
        }),
      ).toThrow(
        expect.objectContaining({
          code: 'provider_selection',
          details: expect.objectContaining({ reason: 'unavailable' }),
        }),
      );
    } finally {
      writeFileSync(props, 'application.version=11.3.1\napplication.java.min=21\n');
    }
  });
});

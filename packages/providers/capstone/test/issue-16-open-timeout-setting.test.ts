// Capstone declares the deadline of opening a target as a setting (REA_CAPSTONE_OPEN_TIMEOUT_MS) that
// hosts compose at startup; `open` reads it from the host's composed configuration.
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPSTONE_SETTINGS, createCapstoneProvider } from '@rea/provider-capstone';
import { CAPSTONE_SETTINGS as FROM_SUBPATH } from '@rea/provider-capstone/settings';
import { createCallSupervisor, describeSettings, readConfig } from '@rea/provider-kit';
import type { OpenOptions } from '@rea/provider-kit';
import { withTempDir } from '@rea/test-helpers';

const ACCEPTED = 'a decimal integer from 1 to 2147483647 (digits only, no leading zero)';

function openOptions(config: OpenOptions['config']): OpenOptions {
  return {
    signal: new AbortController().signal,
    supervisor: createCallSupervisor(),
    runId: 'run_settings',
    progress: { report: () => undefined },
    config,
  };
}

describe('issue 16: the Capstone provider declares its open deadline as a setting', () => {
  it('should declare REA_CAPSTONE_OPEN_TIMEOUT_MS, from its engine-free settings module too', () => {
    expect(createCapstoneProvider().settings).toBe(CAPSTONE_SETTINGS);
    expect(FROM_SUBPATH).toBe(CAPSTONE_SETTINGS);
    expect(describeSettings([CAPSTONE_SETTINGS])).toEqual([
      {
        variable: 'REA_CAPSTONE_OPEN_TIMEOUT_MS',
        owner: 'capstone',
        accepted: ACCEPTED,
        default: '600000',
        description: expect.stringContaining('Deadline of opening a target'),
      },
    ]);
  });

  it('should refuse values outside the accepted form at composition, and read valid ones', () => {
    for (const value of ['0', '2147483648', '01', '1e3', ' 5', '']) {
      expect(() => readConfig({ REA_CAPSTONE_OPEN_TIMEOUT_MS: value }, [CAPSTONE_SETTINGS])).toThrow(
        expect.objectContaining({
          code: 'configuration_invalid',
          details: { variable: 'REA_CAPSTONE_OPEN_TIMEOUT_MS', value, accepted: ACCEPTED },
        }),
      );
    }
    expect(readConfig({ REA_CAPSTONE_OPEN_TIMEOUT_MS: '1500' }, [CAPSTONE_SETTINGS]).capstoneOpenTimeoutMs).toBe(1500);
    expect(readConfig({}, [CAPSTONE_SETTINGS]).capstoneOpenTimeoutMs).toBe(600_000);
  });

  it('should read the deadline from the composed configuration in open', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'notes.txt');
      writeFileSync(path, 'not a binary\n');
      const target = { path, format: 'elf', sha256: '0'.repeat(64), size: 13 };
      const provider = createCapstoneProvider();
      // A host that did not compose Capstone's settings is told so before any work starts.
      await expect(provider.open(target, openOptions(readConfig({})))).rejects.toMatchObject({
        code: 'internal',
        details: { reason: 'settings-not-composed', owner: 'capstone' },
      });
      // Composed, open goes on to read the target (and refuses this one as not a binary).
      await expect(provider.open(target, openOptions(readConfig({}, [CAPSTONE_SETTINGS])))).rejects.toMatchObject({
        code: 'unsupported_target',
      });
    });
  });
});

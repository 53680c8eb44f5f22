// Before a command that analyses runs, the CLI checks the settings of REA and of every provider of its
// host, as `rea mcp` does at start. A host that does not list its providers' settings has them read from
// its providers. Runs the built CLI with the fixture host (fixtures/cli.mjs), whose missing-engine
// provider declares REA_MISSING_ENGINE_TIMEOUT_MS (1 to 60000).
import { describe, expect, it } from '@jest/globals';
import { withTempDir } from '@rea/test-helpers';
import { FIXTURE_CLI, run } from './run.js';

const accepted = 'a decimal integer from 1 to 60000 (digits only, no leading zero)';

describe('rea with an invalid setting of a provider', () => {
  it('should refuse a tool command that does not use the provider, and run it once the value is accepted', async () => {
    await withTempDir(async (home) => {
      const refused = await run(FIXTURE_CLI, ['hash-text', 'hello', '--format', 'json'], {
        env: { HOME: home, REA_MISSING_ENGINE_TIMEOUT_MS: '60001' },
      });
      expect(refused.code).toBe(4);
      expect(JSON.parse(refused.stdout)).toEqual({
        error: expect.objectContaining({
          code: 'configuration_invalid',
          message: `REA_MISSING_ENGINE_TIMEOUT_MS="60001" is not ${accepted}.`,
          details: { variable: 'REA_MISSING_ENGINE_TIMEOUT_MS', value: '60001', accepted },
        }),
      });
      const valid = await run(FIXTURE_CLI, ['hash-text', 'hello', '--format', 'json'], {
        env: { HOME: home, REA_MISSING_ENGINE_TIMEOUT_MS: '60000' },
      });
      expect(valid.code).toBe(0);
      expect(JSON.parse(valid.stdout)).toMatchObject({ operation: 'hash_text' });
    });
  });

  it('should report the setting from doctor without failing, and print help and schemas', async () => {
    await withTempDir(async (home) => {
      const env = { HOME: home, REA_MISSING_ENGINE_TIMEOUT_MS: '60001' };
      expect((await run(FIXTURE_CLI, ['doctor', '--json'], { env })).code).toBe(0);
      expect((await run(FIXTURE_CLI, ['hash-text', '--help'], { env })).code).toBe(0);
      expect((await run(FIXTURE_CLI, ['hash-text', '--schema'], { env })).code).toBe(0);
    });
  });
});

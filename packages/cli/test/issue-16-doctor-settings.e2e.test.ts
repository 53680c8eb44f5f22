// rea doctor composes the settings the providers declare with REA's own: it lists every setting with
// its owner and accepted form, and reports a provider's invalid variable with the variable, the value
// and the accepted form. Runs the built CLI with the fixture host (fixtures/cli.mjs).
import { describe, expect, it } from '@jest/globals';
import { withTempDir } from '@rea/test-helpers';
import { FIXTURE_CLI, run } from './run.js';

const accepted = 'a decimal integer from 1 to 60000 (digits only, no leading zero)';

describe('issue 16: rea doctor and declared provider settings', () => {
  it("should list a provider's declared setting and report its invalid value", async () => {
    await withTempDir(async (home) => {
      const result = await run(FIXTURE_CLI, ['doctor', '--json'], {
        env: { HOME: home, REA_MISSING_ENGINE_TIMEOUT_MS: '60001' },
      });
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as {
        configuration: { valid: boolean; error?: { code: string; message: string; details: object } };
        settings: Array<{ variable: string; owner: string; accepted: string; default: string | null; set: boolean }>;
      };
      expect(report.configuration).toMatchObject({
        valid: false,
        error: {
          code: 'configuration_invalid',
          message: `REA_MISSING_ENGINE_TIMEOUT_MS="60001" is not ${accepted}.`,
          details: { variable: 'REA_MISSING_ENGINE_TIMEOUT_MS', value: '60001', accepted },
        },
      });
      expect(report.settings.find((s) => s.variable === 'REA_MISSING_ENGINE_TIMEOUT_MS')).toEqual({
        variable: 'REA_MISSING_ENGINE_TIMEOUT_MS',
        owner: 'missing-engine',
        accepted,
        default: '1000',
        description: 'Startup deadline of the missing engine in ms.',
        set: true,
      });
      expect(report.settings.find((s) => s.variable === 'REA_MCP_INPUT_SCHEMA_PROFILE')).toMatchObject({
        owner: 'rea',
        set: false,
      });
      const variables = report.settings.map((s) => s.variable);
      expect(variables).toEqual([...variables].sort());
    });
  });

  it('should call the composed configuration valid once the value is accepted', async () => {
    await withTempDir(async (home) => {
      const result = await run(FIXTURE_CLI, ['doctor', '--json'], {
        env: { HOME: home, REA_MISSING_ENGINE_TIMEOUT_MS: '60000' },
      });
      expect(JSON.parse(result.stdout)).toMatchObject({ configuration: { valid: true } });
    });
  });
});

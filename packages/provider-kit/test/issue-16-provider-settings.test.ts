// A provider declares the environment variables it reads (a zod schema per variable, its accepted form
// and default); the host composes them with its own for startup validation, rea doctor and the docs.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { isReaError } from '@rea/evidence';
import {
  CONFIG_VARIABLES,
  GHIDRA_SETTINGS,
  defineSettings,
  describeSettings,
  integerSetting,
  pathSetting,
  providerSettings,
  readConfig,
  settingsOf,
} from '@rea/provider-kit';

const LLDB_SETTINGS = defineSettings('lldb', {
  lldbPath: pathSetting('REA_LLDB_PATH', 'The lldb executable.'),
  lldbAttachTimeoutMs: integerSetting('REA_LLDB_ATTACH_TIMEOUT_MS', {
    fallback: 30_000,
    min: 100,
    max: 600_000,
    description: 'Attach deadline in ms.',
  }),
  lldbMode: {
    variable: 'REA_LLDB_MODE',
    accepted: '"attach" or "launch"',
    default: 'launch',
    description: 'How lldb reaches the program.',
    schema: z
      .enum(['attach', 'launch'])
      .optional()
      .transform((value) => value ?? 'launch'),
  },
});

function refusal(run: () => unknown): { code: string; message: string; details: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; message: string; details: Record<string, unknown> };
  }
  throw new Error('expected a refusal');
}

describe('issue 16: providers own their settings', () => {
  it('should compose a provider declaration with the built-in settings, defaults included', () => {
    const config = readConfig({ REA_LLDB_PATH: '/usr/bin/lldb' }, [LLDB_SETTINGS]);
    expect(config).toMatchObject({
      lldbPath: '/usr/bin/lldb',
      lldbAttachTimeoutMs: 30_000,
      lldbMode: 'launch',
      ghidraStartupTimeoutMs: 330_000,
      mcpInputSchemaProfile: 'full',
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(settingsOf(LLDB_SETTINGS, config)).toEqual({
      lldbPath: '/usr/bin/lldb',
      lldbAttachTimeoutMs: 30_000,
      lldbMode: 'launch',
    });
    expect(settingsOf(GHIDRA_SETTINGS, config)).toEqual({
      ghidraInstallDir: null,
      javaHome: null,
      ghidraStartupTimeoutMs: 330_000,
    });
  });

  it('should refuse a provider variable with the variable, the value and the accepted form', () => {
    for (const [variable, value, accepted] of [
      ['REA_LLDB_ATTACH_TIMEOUT_MS', '99', 'a decimal integer from 100 to 600000 (digits only, no leading zero)'],
      ['REA_LLDB_ATTACH_TIMEOUT_MS', '1e3', 'a decimal integer from 100 to 600000 (digits only, no leading zero)'],
      ['REA_LLDB_MODE', 'Attach', '"attach" or "launch"'],
    ] as const) {
      const error = refusal(() => readConfig({ [variable]: value }, [LLDB_SETTINGS]));
      expect(error.code).toBe('configuration_invalid');
      expect(error.details).toEqual({ variable, value, accepted });
      expect(error.message).toBe(`${variable}="${value}" is not ${accepted}.`);
    }
  });

  it('should check provider and built-in variables together, in alphabetical order', () => {
    const env = { REA_MCP_INPUT_SCHEMA_PROFILE: 'tiny', REA_LLDB_MODE: 'x', REA_GHIDRA_STARTUP_TIMEOUT_MS: '0' };
    expect(refusal(() => readConfig(env, [LLDB_SETTINGS])).details['variable']).toBe('REA_GHIDRA_STARTUP_TIMEOUT_MS');
    const { REA_GHIDRA_STARTUP_TIMEOUT_MS: _ghidra, ...rest } = env;
    expect(refusal(() => readConfig(rest, [LLDB_SETTINGS])).details['variable']).toBe('REA_LLDB_MODE');
    // Without the declaration its variables are unknown, so ignored.
    expect(refusal(() => readConfig(rest)).details['variable']).toBe('REA_MCP_INPUT_SCHEMA_PROFILE');
  });

  it('should refuse two declarations that read the same variable, and malformed declarations', () => {
    const clash = defineSettings('other', { otherHome: pathSetting('JAVA_HOME', 'Another JDK.') });
    expect(refusal(() => readConfig({}, [clash]))).toMatchObject({
      code: 'invalid_request',
      details: { reason: 'invalid-settings', owner: 'other' },
    });
    expect(refusal(() => defineSettings('bad', { x: pathSetting('lower_case', 'A path.') }))).toMatchObject({
      code: 'invalid_request',
      details: { reason: 'invalid-settings', owner: 'bad' },
    });
    expect(refusal(() => settingsOf(LLDB_SETTINGS, readConfig({})))).toMatchObject({
      code: 'internal',
      details: { reason: 'settings-not-composed', owner: 'lldb' },
    });
  });

  it('should describe every composed variable with its owner for doctor and the docs', () => {
    const providers = [{ settings: LLDB_SETTINGS }, { settings: LLDB_SETTINGS }, {}];
    expect(providerSettings(providers)).toEqual([LLDB_SETTINGS]);
    const described = describeSettings([GHIDRA_SETTINGS, LLDB_SETTINGS]);
    expect(described.map((entry) => `${entry.owner}:${entry.variable}`)).toEqual([
      'ghidra:GHIDRA_INSTALL_DIR',
      'ghidra:JAVA_HOME',
      'ghidra:REA_GHIDRA_STARTUP_TIMEOUT_MS',
      'lldb:REA_LLDB_ATTACH_TIMEOUT_MS',
      'lldb:REA_LLDB_MODE',
      'lldb:REA_LLDB_PATH',
    ]);
    expect(described[3]).toEqual({
      variable: 'REA_LLDB_ATTACH_TIMEOUT_MS',
      owner: 'lldb',
      accepted: 'a decimal integer from 100 to 600000 (digits only, no leading zero)',
      default: '30000',
      description: 'Attach deadline in ms.',
    });
    expect(CONFIG_VARIABLES.find((entry) => entry.variable === 'REA_HOPPER_STARTUP_TIMEOUT_MS')).toMatchObject({
      owner: 'hopper',
      default: '120000',
    });
  });
});

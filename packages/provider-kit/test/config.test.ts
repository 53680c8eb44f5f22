import { describe, expect, it } from '@jest/globals';
import { isReaError } from '@rea/evidence';
import { CONFIG_VARIABLES, ENVELOPE_RESERVE_BYTES, MIN_RESPONSE_BYTES, readConfig } from '@rea/provider-kit';

function refusal(env: Record<string, string>): { code: string; details: Record<string, unknown> } {
  try {
    readConfig(env);
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected configuration_invalid');
}

describe('readConfig', () => {
  it('should apply the documented defaults to an empty environment', () => {
    expect(readConfig({})).toEqual({
      ghidraStartupTimeoutMs: 330000,
      hopperStartupTimeoutMs: 120000,
      mcpMaxResponseBytes: 10 * 1024 * 1024,
      mcpEnvelopeReserveBytes: 1024,
      mcpHttpSessionIdleMs: 1_800_000,
      mcpInputSchemaProfile: 'full',
      analysisProvider: null,
      codeCache: 'on',
      codeCacheDir: null,
      ghidraInstallDir: null,
      javaHome: null,
      hopperLauncherPath: null,
    });
    expect(MIN_RESPONSE_BYTES).toBe(10 * 1024 * 1024);
    expect(ENVELOPE_RESERVE_BYTES).toBe(1024);
  });

  it('should return a frozen object', () => {
    const config = readConfig({ REA_ANALYSIS_PROVIDER: 'ghidra' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.analysisProvider)).toBe(true);
  });

  it('should read every variable', () => {
    expect(
      readConfig({
        REA_GHIDRA_STARTUP_TIMEOUT_MS: '240000',
        REA_HOPPER_STARTUP_TIMEOUT_MS: '1',
        REA_MCP_MAX_RESPONSE_BYTES: '20971520',
        REA_MCP_INPUT_SCHEMA_PROFILE: 'compact',
        REA_MCP_HTTP_SESSION_IDLE_MS: '60000',
        REA_ANALYSIS_PROVIDER: 'auto',
        REA_CODE_CACHE: 'off',
        REA_CODE_CACHE_DIR: '/var/cache/rea',
        GHIDRA_INSTALL_DIR: '/opt/ghidra',
        JAVA_HOME: '/usr/lib/jvm/java-21',
        HOPPER_LAUNCHER_PATH: '/usr/bin/hopper',
        REA_SOMETHING_ELSE: 'ignored',
      }),
    ).toEqual({
      ghidraStartupTimeoutMs: 240000,
      hopperStartupTimeoutMs: 1,
      mcpMaxResponseBytes: 20971520,
      mcpEnvelopeReserveBytes: 1024,
      mcpHttpSessionIdleMs: 60000,
      mcpInputSchemaProfile: 'compact',
      analysisProvider: { kind: 'auto' },
      codeCache: 'off',
      codeCacheDir: '/var/cache/rea',
      ghidraInstallDir: '/opt/ghidra',
      javaHome: '/usr/lib/jvm/java-21',
      hopperLauncherPath: '/usr/bin/hopper',
    });
    expect(readConfig({ REA_ANALYSIS_PROVIDER: 'hopper' }).analysisProvider).toEqual({
      kind: 'concrete',
      id: 'hopper',
    });
  });

  it('should treat an empty path variable as unset', () => {
    expect(readConfig({ GHIDRA_INSTALL_DIR: '', JAVA_HOME: '', HOPPER_LAUNCHER_PATH: '' })).toMatchObject({
      ghidraInstallDir: null,
      javaHome: null,
      hopperLauncherPath: null,
    });
  });

  for (const variable of [
    'REA_GHIDRA_STARTUP_TIMEOUT_MS',
    'REA_HOPPER_STARTUP_TIMEOUT_MS',
    'REA_MCP_HTTP_SESSION_IDLE_MS',
  ]) {
    const key = variable.startsWith('REA_GHIDRA')
      ? 'ghidraStartupTimeoutMs'
      : variable.startsWith('REA_HOPPER')
        ? 'hopperStartupTimeoutMs'
        : 'mcpHttpSessionIdleMs';

    it(`should accept ${variable} from 1 to 2147483647`, () => {
      expect(readConfig({ [variable]: '1' })[key]).toBe(1);
      expect(readConfig({ [variable]: '2147483647' })[key]).toBe(2 ** 31 - 1);
    });

    // '01' is refused: leading zeros read as octal in some tools, so only the canonical form is accepted.
    for (const value of ['0', '2147483648', '01', ' 5', '5 ', '5e3', '-1', '+5', 'abc', '0x10', '1.5', '1_000', '']) {
      it(`should refuse ${variable}=${JSON.stringify(value)} with configuration_invalid`, () => {
        const error = refusal({ [variable]: value });
        expect(error.code).toBe('configuration_invalid');
        expect(error.details).toEqual({
          variable,
          value,
          accepted: 'a decimal integer from 1 to 2147483647 (digits only, no leading zero)',
        });
      });
    }
  }

  it('should accept REA_MCP_MAX_RESPONSE_BYTES from 10485760 to the largest safe integer', () => {
    expect(readConfig({ REA_MCP_MAX_RESPONSE_BYTES: '10485760' }).mcpMaxResponseBytes).toBe(10485760);
    expect(readConfig({ REA_MCP_MAX_RESPONSE_BYTES: '9007199254740991' }).mcpMaxResponseBytes).toBe(2 ** 53 - 1);
  });

  for (const value of ['10485759', '0', '9007199254740992', '99999999999999999999', '1e8', '010485760', ' 10485760']) {
    it(`should refuse REA_MCP_MAX_RESPONSE_BYTES=${JSON.stringify(value)}`, () => {
      const error = refusal({ REA_MCP_MAX_RESPONSE_BYTES: value });
      expect(error).toMatchObject({
        code: 'configuration_invalid',
        details: { variable: 'REA_MCP_MAX_RESPONSE_BYTES', value },
      });
    });
  }

  for (const value of ['FULL', 'Compact', 'minimal', '', ' full']) {
    it(`should refuse REA_MCP_INPUT_SCHEMA_PROFILE=${JSON.stringify(value)}`, () => {
      expect(refusal({ REA_MCP_INPUT_SCHEMA_PROFILE: value })).toMatchObject({
        code: 'configuration_invalid',
        details: { variable: 'REA_MCP_INPUT_SCHEMA_PROFILE', value, accepted: '"full" or "compact"' },
      });
    });
  }

  for (const value of ['Ghidra', 'AUTO', '', ' auto', 'ghidra!', '1ghidra', 'a'.repeat(65)]) {
    it(`should refuse REA_ANALYSIS_PROVIDER=${JSON.stringify(value)} with configuration_invalid`, () => {
      expect(refusal({ REA_ANALYSIS_PROVIDER: value })).toMatchObject({
        code: 'configuration_invalid',
        details: { variable: 'REA_ANALYSIS_PROVIDER', value },
      });
    });
  }

  it('should name the first invalid variable in alphabetical order', () => {
    const error = refusal({ REA_MCP_MAX_RESPONSE_BYTES: 'x', REA_HOPPER_STARTUP_TIMEOUT_MS: 'y' });
    expect(error.details['variable']).toBe('REA_HOPPER_STARTUP_TIMEOUT_MS');
  });

  it('should document every variable it reads, in alphabetical order', () => {
    const names = CONFIG_VARIABLES.map((v) => v.variable);
    expect(names).toEqual([
      'GHIDRA_INSTALL_DIR',
      'HOPPER_LAUNCHER_PATH',
      'JAVA_HOME',
      'REA_ANALYSIS_PROVIDER',
      'REA_CODE_CACHE',
      'REA_CODE_CACHE_DIR',
      'REA_GHIDRA_STARTUP_TIMEOUT_MS',
      'REA_HOPPER_STARTUP_TIMEOUT_MS',
      'REA_MCP_HTTP_SESSION_IDLE_MS',
      'REA_MCP_INPUT_SCHEMA_PROFILE',
      'REA_MCP_MAX_RESPONSE_BYTES',
    ]);
  });
});

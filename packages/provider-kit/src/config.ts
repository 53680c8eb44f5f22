import { ReaError } from '@rea/evidence';
import { parseProviderChoice } from './providerId.js';
import type { ProviderChoice } from './providerId.js';

/** Settings read once at startup from the environment. Frozen. */
export interface ReaConfig {
  /** REA_GHIDRA_STARTUP_TIMEOUT_MS: Ghidra startup deadline in ms (default 330000). */
  readonly ghidraStartupTimeoutMs: number;
  /** REA_HOPPER_STARTUP_TIMEOUT_MS: Hopper startup deadline in ms (default 120000). */
  readonly hopperStartupTimeoutMs: number;
  /** REA_MCP_MAX_RESPONSE_BYTES: the client's receive budget in bytes (default 10485760). */
  readonly mcpMaxResponseBytes: number;
  /**
   * REA_MCP_HTTP_SESSION_IDLE_MS: how long a Streamable HTTP session may go without a request before the
   * server closes it (its provider and ledger with it) in ms (default 1800000, 30 minutes).
   */
  readonly mcpHttpSessionIdleMs: number;
  /** Bytes of that budget reserved for the JSON-RPC envelope (1024). */
  readonly mcpEnvelopeReserveBytes: number;
  /** REA_MCP_INPUT_SCHEMA_PROFILE: how input schemas are advertised (default "full"). */
  readonly mcpInputSchemaProfile: 'full' | 'compact';
  /** REA_ANALYSIS_PROVIDER: the default deep provider choice, or null when unset (selection is then auto). */
  readonly analysisProvider: ProviderChoice | null;
  /** GHIDRA_INSTALL_DIR, or null when unset or empty. */
  readonly ghidraInstallDir: string | null;
  /** JAVA_HOME, or null when unset or empty. */
  readonly javaHome: string | null;
  /** HOPPER_LAUNCHER_PATH, or null when unset or empty. */
  readonly hopperLauncherPath: string | null;
}

/** Smallest accepted REA_MCP_MAX_RESPONSE_BYTES (the pinned client's 10 MiB receive buffer). */
export const MIN_RESPONSE_BYTES = 10_485_760;
/** Bytes reserved for the response envelope within REA_MCP_MAX_RESPONSE_BYTES. */
export const ENVELOPE_RESERVE_BYTES = 1024;
const MAX_TIMEOUT_MS = 2_147_483_647;
// Digits only, no leading zero: no sign, exponent, fraction, whitespace, hex or octal-looking forms.
const DECIMAL = /^[1-9][0-9]*$/;

/** Every environment variable {@link readConfig} reads, with its accepted form and default. */
export const CONFIG_VARIABLES = Object.freeze([
  { variable: 'GHIDRA_INSTALL_DIR', accepted: 'a path; empty is treated as unset', default: null },
  { variable: 'HOPPER_LAUNCHER_PATH', accepted: 'a path; empty is treated as unset', default: null },
  { variable: 'JAVA_HOME', accepted: 'a path; empty is treated as unset', default: null },
  {
    variable: 'REA_ANALYSIS_PROVIDER',
    accepted: '"auto" or a provider id (lowercase letters, digits and hyphens, starting with a letter)',
    default: 'auto',
  },
  {
    variable: 'REA_GHIDRA_STARTUP_TIMEOUT_MS',
    accepted: `decimal integer from 1 to ${MAX_TIMEOUT_MS} (digits only, no leading zero)`,
    default: '330000',
  },
  {
    variable: 'REA_HOPPER_STARTUP_TIMEOUT_MS',
    accepted: `decimal integer from 1 to ${MAX_TIMEOUT_MS} (digits only, no leading zero)`,
    default: '120000',
  },
  {
    variable: 'REA_MCP_HTTP_SESSION_IDLE_MS',
    accepted: `decimal integer from 1 to ${MAX_TIMEOUT_MS} (digits only, no leading zero)`,
    default: '1800000',
  },
  { variable: 'REA_MCP_INPUT_SCHEMA_PROFILE', accepted: '"full" or "compact"', default: 'full' },
  {
    variable: 'REA_MCP_MAX_RESPONSE_BYTES',
    accepted: `safe decimal integer of at least ${MIN_RESPONSE_BYTES} (digits only, no leading zero)`,
    default: String(MIN_RESPONSE_BYTES),
  },
] as const);

type Env = Readonly<Record<string, string | undefined>>;

function accepted(variable: string): string {
  return CONFIG_VARIABLES.find((v) => v.variable === variable)!.accepted;
}

function invalid(variable: string, value: string): ReaError {
  const shown = value.slice(0, 200);
  return new ReaError('configuration_invalid', `${variable}="${shown}" is not ${accepted(variable)}.`, {
    details: { variable, value: shown, accepted: accepted(variable) },
  });
}

function integer(env: Env, variable: string, fallback: number, min: number, max: bigint): number {
  const value = env[variable];
  if (value === undefined) return fallback;
  if (!DECIMAL.test(value)) throw invalid(variable, value);
  const parsed = BigInt(value);
  if (parsed < BigInt(min) || parsed > max) throw invalid(variable, value);
  return Number(parsed);
}

function path(env: Env, variable: string): string | null {
  const value = env[variable];
  return value === undefined || value === '' ? null : value;
}

/**
 * Reads every setting from `env` (default `process.env`) and returns a frozen {@link ReaConfig}. Read
 * once at startup; later environment changes need a restart. An unset REA_* variable takes its
 * default; a set one (including the empty string) must have the accepted form, otherwise
 * `configuration_invalid` with `details` { variable, value, accepted } for the first invalid variable in
 * alphabetical order. Unknown variables are ignored.
 */
export function readConfig(env: Env = process.env): ReaConfig {
  const provider = env['REA_ANALYSIS_PROVIDER'];
  const profile = env['REA_MCP_INPUT_SCHEMA_PROFILE'];
  const config: ReaConfig = {
    ghidraInstallDir: path(env, 'GHIDRA_INSTALL_DIR'),
    hopperLauncherPath: path(env, 'HOPPER_LAUNCHER_PATH'),
    javaHome: path(env, 'JAVA_HOME'),
    analysisProvider: provider === undefined ? null : parseProviderChoice(provider, 'environment'),
    ghidraStartupTimeoutMs: integer(env, 'REA_GHIDRA_STARTUP_TIMEOUT_MS', 330_000, 1, BigInt(MAX_TIMEOUT_MS)),
    hopperStartupTimeoutMs: integer(env, 'REA_HOPPER_STARTUP_TIMEOUT_MS', 120_000, 1, BigInt(MAX_TIMEOUT_MS)),
    mcpInputSchemaProfile:
      profile === undefined
        ? 'full'
        : profile === 'full' || profile === 'compact'
          ? profile
          : (() => {
              throw invalid('REA_MCP_INPUT_SCHEMA_PROFILE', profile);
            })(),
    mcpMaxResponseBytes: integer(
      env,
      'REA_MCP_MAX_RESPONSE_BYTES',
      MIN_RESPONSE_BYTES,
      MIN_RESPONSE_BYTES,
      BigInt(Number.MAX_SAFE_INTEGER),
    ),
    mcpEnvelopeReserveBytes: ENVELOPE_RESERVE_BYTES,
    mcpHttpSessionIdleMs: integer(env, 'REA_MCP_HTTP_SESSION_IDLE_MS', 1_800_000, 1, BigInt(MAX_TIMEOUT_MS)),
  };
  if (config.analysisProvider) Object.freeze(config.analysisProvider);
  return Object.freeze(config);
}

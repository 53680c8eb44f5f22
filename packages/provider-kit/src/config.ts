import { z } from 'zod';
import { parseProviderChoice } from './providerId.js';
import type { ProviderChoice } from './providerId.js';
import {
  choiceSetting,
  defineSettings,
  describeSettings,
  integerSetting,
  pathSetting,
  readSettings,
} from './settings.js';
import type { SettingsDeclaration, SettingsValues } from './settings.js';

/** Smallest accepted REA_MCP_MAX_RESPONSE_BYTES (the pinned client's 10 MiB receive buffer). */
export const MIN_RESPONSE_BYTES = 10_485_760;
/** Bytes reserved for the response envelope within REA_MCP_MAX_RESPONSE_BYTES. */
export const ENVELOPE_RESERVE_BYTES = 1024;
const MAX_TIMEOUT_MS = 2_147_483_647;
const CHOICE = /^(?:auto|[a-z][a-z0-9-]{0,63})$/;

/** The host's own settings: selection, the command line's code cache, response budget, HTTP sessions, schema profile. */
export const REA_SETTINGS = defineSettings('rea', {
  analysisProvider: {
    variable: 'REA_ANALYSIS_PROVIDER',
    accepted: '"auto" or a provider id (lowercase letters, digits and hyphens, starting with a letter)',
    default: 'auto',
    description: 'The default deep provider choice of open_binary and --target; unset means auto.',
    schema: z
      .string()
      .regex(CHOICE)
      .transform((value): ProviderChoice => parseProviderChoice(value, 'environment'))
      .optional()
      .transform((value) => value ?? null),
  },
  codeCache: choiceSetting(
    'REA_CODE_CACHE',
    ['on', 'off'],
    'on',
    "Whether the command line keeps V8's compiled code of its bundle between runs (off: compile every run, write nothing).",
  ),
  codeCacheDir: pathSetting(
    'REA_CODE_CACHE_DIR',
    "The command line's code cache directory; unset: $XDG_CACHE_HOME/rea, else ~/.cache/rea (macOS ~/Library/Caches/rea, Windows %LOCALAPPDATA%\\rea\\cache).",
  ),
  mcpHttpSessionIdleMs: integerSetting('REA_MCP_HTTP_SESSION_IDLE_MS', {
    fallback: 1_800_000,
    min: 1,
    max: MAX_TIMEOUT_MS,
    description: 'How long a Streamable HTTP session may go without a request before the server closes it, in ms.',
  }),
  mcpInputSchemaProfile: choiceSetting(
    'REA_MCP_INPUT_SCHEMA_PROFILE',
    ['full', 'compact'],
    'full',
    'How input schemas are advertised.',
  ),
  mcpMaxResponseBytes: integerSetting('REA_MCP_MAX_RESPONSE_BYTES', {
    fallback: MIN_RESPONSE_BYTES,
    min: MIN_RESPONSE_BYTES,
    max: Number.MAX_SAFE_INTEGER,
    accepted: `a safe decimal integer of at least ${MIN_RESPONSE_BYTES} (digits only, no leading zero)`,
    description: "The client's receive budget in bytes.",
  }),
});

/** The settings of the Ghidra provider, declared here until that provider's package declares them. */
export const GHIDRA_SETTINGS = defineSettings('ghidra', {
  ghidraInstallDir: pathSetting('GHIDRA_INSTALL_DIR', 'The Ghidra installation to run.'),
  javaHome: pathSetting('JAVA_HOME', 'The JDK Ghidra runs on.'),
  ghidraStartupTimeoutMs: integerSetting('REA_GHIDRA_STARTUP_TIMEOUT_MS', {
    fallback: 330_000,
    min: 1,
    max: MAX_TIMEOUT_MS,
    description: 'Ghidra startup deadline (import, analysis, bridge) in ms.',
  }),
});

/** The settings of the Hopper provider, declared here until that provider's package declares them. */
export const HOPPER_SETTINGS = defineSettings('hopper', {
  hopperLauncherPath: pathSetting('HOPPER_LAUNCHER_PATH', 'The Hopper launcher to run.'),
  hopperStartupTimeoutMs: integerSetting('REA_HOPPER_STARTUP_TIMEOUT_MS', {
    fallback: 120_000,
    min: 1,
    max: MAX_TIMEOUT_MS,
    description: 'Hopper startup deadline in ms.',
  }),
});

/** The declarations every host composes, before the providers' own. */
export const BUILT_IN_SETTINGS: readonly SettingsDeclaration[] = Object.freeze([
  REA_SETTINGS,
  GHIDRA_SETTINGS,
  HOPPER_SETTINGS,
]);

/**
 * Settings read once at startup from the environment. Frozen. Each field is the setting of that key in
 * {@link REA_SETTINGS}, {@link GHIDRA_SETTINGS} or {@link HOPPER_SETTINGS} (see their variables), plus
 * `mcpEnvelopeReserveBytes` (1024, fixed). Providers' own settings are composed in by {@link readConfig}.
 */
export type ReaConfig = Readonly<
  SettingsValues<typeof REA_SETTINGS> &
    SettingsValues<typeof GHIDRA_SETTINGS> &
    SettingsValues<typeof HOPPER_SETTINGS> & {
      /** Bytes of REA_MCP_MAX_RESPONSE_BYTES reserved for the JSON-RPC envelope (1024). */
      mcpEnvelopeReserveBytes: number;
    }
>;

/** The values of several declarations together. */
type Composed<D extends readonly SettingsDeclaration[]> = D extends readonly [infer H, ...infer T]
  ? SettingsValues<H> & (T extends readonly SettingsDeclaration[] ? Composed<T> : unknown)
  : unknown;

/**
 * Every environment variable of the built-in declarations, with its owner, accepted form, default and
 * description, sorted by variable. A host lists its providers' settings too with `describeSettings`.
 */
export const CONFIG_VARIABLES = Object.freeze(describeSettings(BUILT_IN_SETTINGS).map((entry) => Object.freeze(entry)));

/**
 * The settings declarations of `providers` (each declaration once, in provider order), for
 * {@link readConfig} and `describeSettings`.
 */
export function providerSettings(
  providers: ReadonlyArray<{ readonly settings?: SettingsDeclaration }>,
): SettingsDeclaration[] {
  const declarations: SettingsDeclaration[] = [];
  for (const provider of providers) {
    if (provider.settings && !declarations.includes(provider.settings)) declarations.push(provider.settings);
  }
  return declarations;
}

/**
 * Reads every setting from `env` (default `process.env`) and returns a frozen {@link ReaConfig},
 * composed with the settings `providers` declare (`Provider.settings`). Read once at startup; later
 * environment changes need a restart. An unset variable takes its default; a set one (including the
 * empty string) must have the accepted form, otherwise `configuration_invalid` with `details`
 * { variable, value, accepted } for the first invalid variable in alphabetical order across every
 * composed declaration. Unknown variables are ignored. Two declarations that read the same variable
 * are `invalid_request`.
 */
export function readConfig<const D extends readonly SettingsDeclaration[] = []>(
  env: Readonly<Record<string, string | undefined>> = process.env,
  providers: D = [] as unknown as D,
): ReaConfig & Readonly<Composed<D>> {
  const values = readSettings([...BUILT_IN_SETTINGS, ...providers], env);
  return Object.freeze({ ...values, mcpEnvelopeReserveBytes: ENVELOPE_RESERVE_BYTES }) as ReaConfig &
    Readonly<Composed<D>>;
}

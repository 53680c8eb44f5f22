import { z } from 'zod';
import { ReaError } from '@rea/evidence';

/**
 * One environment variable a provider (or REA itself) reads: its accepted form, documented default,
 * and the zod schema that turns the raw value into the setting. The schema receives `undefined` when
 * the variable is unset; a value it refuses is `configuration_invalid` at startup.
 */
export interface Setting<T> {
  /** The environment variable, e.g. `REA_GHIDRA_STARTUP_TIMEOUT_MS`. */
  readonly variable: string;
  /** The accepted form, as `configuration_invalid`, `rea doctor` and the docs state it. */
  readonly accepted: string;
  /** The documented default, or null when unset means "not configured". */
  readonly default: string | null;
  /** What the setting controls, in one sentence. */
  readonly description: string;
  /** Parses the raw value (`undefined` when unset) into the setting. */
  readonly schema: z.ZodType<T, string | undefined>;
}

/** The settings one owner (a provider id, or `rea`) reads, by the key its code reads them under. */
export interface SettingsDeclaration<V extends Record<string, unknown> = Record<string, unknown>> {
  /** The provider id that reads these settings, or `rea` for the host's own. */
  readonly owner: string;
  readonly settings: { readonly [K in keyof V]: Setting<V[K]> };
}

/** The values a declaration yields. */
export type SettingsValues<D> = D extends SettingsDeclaration<infer V> ? V : never;

/** One composed setting as `rea doctor` and the docs list it. */
export interface SettingDescription {
  variable: string;
  owner: string;
  accepted: string;
  default: string | null;
  description: string;
}

const VARIABLE = /^[A-Z][A-Z0-9_]{0,63}$/;
// Digits only, no leading zero: no sign, exponent, fraction, whitespace, hex or octal-looking forms.
const DECIMAL = /^[1-9][0-9]*$/;

function refuse(owner: string, problem: string): never {
  throw new ReaError('invalid_request', `The settings of ${owner} are invalid: ${problem}.`, {
    details: { reason: 'invalid-settings', owner, problem },
  });
}

/**
 * Declares the settings `owner` reads. Variable names are upper-case environment names, each read by
 * one key. Throws `invalid_request` (`details.reason: "invalid-settings"`) otherwise.
 */
export function defineSettings<V extends Record<string, unknown>>(
  owner: string,
  settings: { readonly [K in keyof V]: Setting<V[K]> },
): SettingsDeclaration<V> {
  const seen = new Set<string>();
  for (const setting of Object.values(settings) as Array<Setting<unknown>>) {
    if (!VARIABLE.test(setting.variable)) refuse(owner, `"${setting.variable}" is not an environment variable name`);
    if (seen.has(setting.variable)) refuse(owner, `${setting.variable} is read twice`);
    if (!setting.accepted.trim() || !setting.description.trim()) refuse(owner, `${setting.variable} is undocumented`);
    seen.add(setting.variable);
  }
  return Object.freeze({ owner, settings: Object.freeze({ ...settings }) });
}

/**
 * A decimal integer setting from `min` to `max` (digits only, no leading zero), `fallback` when unset.
 * `accepted` defaults to "a decimal integer from <min> to <max> (digits only, no leading zero)".
 */
export function integerSetting(
  variable: string,
  options: { fallback: number; min: number; max: number; description: string; accepted?: string },
): Setting<number> {
  const { fallback, min, max } = options;
  return {
    variable,
    accepted: options.accepted ?? `a decimal integer from ${min} to ${max} (digits only, no leading zero)`,
    default: String(fallback),
    description: options.description,
    schema: z
      .string()
      .refine((value) => DECIMAL.test(value) && BigInt(value) >= BigInt(min) && BigInt(value) <= BigInt(max))
      .transform(Number)
      .optional()
      .transform((value) => value ?? fallback),
  };
}

/** A path setting: any string; unset or empty reads as null. */
export function pathSetting(variable: string, description: string): Setting<string | null> {
  return {
    variable,
    accepted: 'a path; empty is treated as unset',
    default: null,
    description,
    schema: z
      .string()
      .optional()
      .transform((value) => (value === undefined || value === '' ? null : value)),
  };
}

/** One of `values` exactly (no trimming, no case folding); `fallback` when unset. */
export function choiceSetting<const C extends readonly [string, ...string[]]>(
  variable: string,
  values: C,
  fallback: C[number],
  description: string,
): Setting<C[number]> {
  return {
    variable,
    accepted: values.map((value) => `"${value}"`).join(values.length === 2 ? ' or ' : ', '),
    default: fallback,
    description,
    schema: z
      .enum(values)
      .optional()
      .transform((value) => value ?? fallback),
  };
}

/** Every setting of `declarations`, sorted by variable; `invalid_request` when two read the same variable or key. */
function composed(
  declarations: readonly SettingsDeclaration[],
): Array<{ key: string; owner: string } & Setting<unknown>> {
  const byVariable = new Map<string, string>();
  const keys = new Set<string>();
  const all: Array<{ key: string; owner: string } & Setting<unknown>> = [];
  for (const declaration of declarations) {
    for (const [key, setting] of Object.entries(declaration.settings) as Array<[string, Setting<unknown>]>) {
      const other = byVariable.get(setting.variable);
      if (other !== undefined) refuse(declaration.owner, `${setting.variable} is also read by ${other}`);
      if (keys.has(key)) refuse(declaration.owner, `the key ${key} is also used by another declaration`);
      byVariable.set(setting.variable, declaration.owner);
      keys.add(key);
      all.push({ ...setting, key, owner: declaration.owner });
    }
  }
  return all.sort((a, b) => (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0));
}

/**
 * Reads the composed settings of `declarations` from `env`: a frozen object of every key. Settings are
 * checked in alphabetical order of their variables; the first refused value is `configuration_invalid`
 * with `details` { variable, value (first 200 characters), accepted }.
 */
export function readSettings(
  declarations: readonly SettingsDeclaration[],
  env: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  for (const setting of composed(declarations)) {
    const raw = env[setting.variable];
    const parsed = setting.schema.safeParse(raw);
    if (!parsed.success) {
      const shown = raw === undefined ? null : raw.slice(0, 200);
      throw new ReaError(
        'configuration_invalid',
        shown === null
          ? `${setting.variable} is not set; it must be ${setting.accepted}.`
          : `${setting.variable}="${shown}" is not ${setting.accepted}.`,
        { details: { variable: setting.variable, value: shown, accepted: setting.accepted } },
      );
    }
    const value: unknown = parsed.data;
    values[setting.key] = typeof value === 'object' && value !== null ? Object.freeze(value) : value;
  }
  return Object.freeze(values);
}

/** Every composed setting (variable, owner, accepted form, default, description), sorted by variable. */
export function describeSettings(declarations: readonly SettingsDeclaration[]): SettingDescription[] {
  return composed(declarations).map(({ variable, owner, accepted, description, ...rest }) => ({
    variable,
    owner,
    accepted,
    default: rest.default,
    description,
  }));
}

/**
 * The values of `declaration` in a composed configuration (what `readConfig` returned, or
 * `OpenOptions.config`). `internal` when the host did not compose this declaration.
 */
export function settingsOf<D extends SettingsDeclaration>(declaration: D, config: object): SettingsValues<D> {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(declaration.settings)) {
    if (!(key in config)) {
      throw new ReaError('internal', `The settings of ${declaration.owner} were not composed at startup.`, {
        details: { reason: 'settings-not-composed', owner: declaration.owner, key },
        remediation: `Give the host ${declaration.owner}'s settings declaration (Provider.settings).`,
      });
    }
    values[key] = (config as Record<string, unknown>)[key];
  }
  return values as SettingsValues<D>;
}

import { rootObjects } from '@rea/provider-kit';
import type { AnyToolContract } from '@rea/provider-kit';
import type { z } from 'zod';

/**
 * The kind of value a generated flag accepts. `json`: a JSON value (an object, an array, a union of
 * such), given inline or as `@file.json`.
 */
export type FlagType = 'string' | 'number' | 'boolean' | 'enum' | 'json';

/** One top-level input property exposed as a flag (and, for a scalar, possibly a positional). */
export interface FlagSpec {
  /** The input property, e.g. `max_depth`. */
  property: string;
  /** The flag, e.g. `--max-depth`. */
  flag: string;
  type: FlagType;
  /** Accepted values for `enum` flags (strings, numbers or booleans of the literal). */
  choices: readonly string[];
  /** Repeatable (`--flag a --flag b`) because the property is an array of scalars. */
  repeatable: boolean;
  required: boolean;
  description: string;
}

/** How a tool contract appears on the command line. */
export interface CommandSpec {
  /** The kebab-case command name (`analyze_function` → `analyze-function`). */
  command: string;
  tool: string;
  /** The property also accepted as the single positional argument, or null. */
  positional: string | null;
  flags: readonly FlagSpec[];
  /**
   * Top-level properties that only `--input` can carry: those whose members' shapes differ across a
   * root union, and those named like a flag every command owns.
   */
  jsonOnly: readonly string[];
  /**
   * The tool analyses the open target (it cannot run without one), so its command takes the target's
   * path as its first positional argument, or as `--target <path>`, and opens it first.
   */
  needsTarget: boolean;
}

const NO_SESSION = { target: null, binding: null, run_id: null };

/** True when a contract cannot run without an open target: its availability refuses an empty session. */
function needsTarget(contract: AnyToolContract): boolean {
  try {
    return !contract.availability({ session: NO_SESSION, platform: process.platform }).available;
  } catch {
    return false;
  }
}

/** Flags every generated command owns; an input property of the same name is reachable through `--input` only. */
export const RESERVED_FLAGS: ReadonlySet<string> = new Set([
  'input',
  'format',
  'quiet',
  'schema',
  'help',
  'version',
  'json',
  'target',
  'provider',
]);

interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
  options?: z.ZodType[];
  in?: z.ZodType;
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Strips optional/nullable/default/readonly wrappers; reports whether the value may be omitted. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; optional: boolean; description: string | undefined } {
  let current = schema;
  let optional = false;
  let description = schema.description;
  for (let i = 0; i < 16; i += 1) {
    const def = defOf(current);
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch'].includes(def.type) && def.innerType) {
      if (def.type !== 'nullable' && def.type !== 'readonly') optional = true;
      current = def.innerType;
      description ??= current.description;
      continue;
    }
    break;
  }
  return { inner: current, optional, description };
}

function scalarOf(schema: z.ZodType): { type: FlagType; choices: string[] } | null {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return { type: 'string', choices: [] };
    case 'number':
    case 'int':
      return { type: 'number', choices: [] };
    case 'boolean':
      return { type: 'boolean', choices: [] };
    case 'enum':
      return { type: 'enum', choices: Object.values(def.entries ?? {}).map(String) };
    case 'literal':
      return (def.values ?? []).every((v) => typeof v === 'string' || typeof v === 'number')
        ? { type: 'enum', choices: (def.values ?? []).map(String) }
        : null;
    default:
      return null;
  }
}

/** Kinds of schema whose value a `json` flag carries. */
const STRUCTURED: ReadonlySet<string> = new Set(['object', 'array', 'union', 'record', 'tuple', 'intersection']);

/** The kebab-case command name of a snake_case tool name. */
export function commandName(tool: string): string {
  return tool.replace(/_/g, '-');
}

/**
 * Derives the command-line shape of a contract from its input schema: each top-level scalar (or array
 * of scalars) becomes a flag, and each object, array of objects or union a flag taking its JSON value
 * (inline or `@file.json`); the first required string property is also accepted positionally; what
 * remains (see {@link CommandSpec.jsonOnly}) is given through `--input`. A tool that needs an open
 * target also takes the target's path (see {@link CommandSpec.needsTarget}). For a root union, a
 * property is required only when every member requires it.
 */
export function commandSpecOf(contract: AnyToolContract): CommandSpec {
  const objects = rootObjects(contract.input) ?? [];
  const seen = new Map<string, { schemas: z.ZodType[]; requiredIn: number }>();
  for (const object of objects) {
    for (const [key, property] of Object.entries(object.shape as Record<string, z.ZodType>)) {
      const entry = seen.get(key) ?? { schemas: [], requiredIn: 0 };
      entry.schemas.push(property);
      if (!unwrap(property).optional) entry.requiredIn += 1;
      seen.set(key, entry);
    }
  }
  const flags: FlagSpec[] = [];
  const jsonOnly: string[] = [];
  for (const [property, { schemas, requiredIn }] of seen) {
    const { inner, description } = unwrap(schemas[0]!);
    const flag = property.replace(/_/g, '-');
    let scalar = scalarOf(inner);
    let repeatable = false;
    if (scalar === null && defOf(inner).type === 'array' && defOf(inner).element) {
      scalar = scalarOf(unwrap(defOf(inner).element!).inner);
      repeatable = scalar !== null && scalar.type !== 'boolean';
      if (!repeatable) scalar = null;
    }
    const sameShape = schemas.every((s) => defOf(unwrap(s).inner).type === defOf(inner).type);
    // An object, an array of objects or a union takes its JSON value (inline or @file.json).
    const json = scalar === null && STRUCTURED.has(defOf(inner).type);
    if ((scalar === null && !json) || !sameShape || RESERVED_FLAGS.has(flag) || flag.startsWith('no-')) {
      jsonOnly.push(property);
      continue;
    }
    flags.push({
      property,
      flag: `--${flag}`,
      type: scalar?.type ?? 'json',
      choices: scalar?.choices ?? [],
      repeatable,
      required: requiredIn === objects.length && objects.length > 0,
      description: description ?? '',
    });
  }
  const positional = flags.find((f) => f.required && f.type === 'string' && !f.repeatable)?.property ?? null;
  return {
    command: commandName(contract.name),
    tool: contract.name,
    positional,
    flags,
    jsonOnly,
    needsTarget: needsTarget(contract),
  };
}

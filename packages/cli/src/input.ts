import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ReaError } from '@rea/evidence';
import type { CommandSpec, FlagSpec } from './commandSpec.js';
import { parseJsonText } from './jsonText.js';

/**
 * Reads the value of `--input`: inline JSON, or `@file.json` read relative to `cwd`. The result must
 * be a JSON object. A missing file is `not_found`; unreadable text or non-objects are `invalid_request`.
 */
export async function readInputOption(value: string, cwd: string): Promise<Record<string, unknown>> {
  const parsed = await readJsonOption('--input', value, cwd);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const what = value.startsWith('@') ? `The input file ${resolve(cwd, value.slice(1))}` : 'The --input value';
    throw new ReaError('invalid_request', `${what} must be a JSON object.`, {
      details: { reason: 'not-an-object' },
    });
  }
  return parsed as Record<string, unknown>;
}

/**
 * The options with the value of each given `json` flag read (see {@link readJsonOption}): what
 * {@link mergeInput} takes. Other options are as given.
 */
export async function readJsonFlags(
  spec: CommandSpec,
  options: Record<string, unknown>,
  cwd: string,
): Promise<Record<string, unknown>> {
  const read: Record<string, unknown> = { ...options };
  for (const flag of spec.flags) {
    if (flag.type !== 'json') continue;
    const key = optionKey(flag);
    if (typeof options[key] === 'string') read[key] = await readJsonOption(flag.flag, options[key], cwd);
  }
  return read;
}

/** The key commander stores a flag's value under (`--max-depth` → `maxDepth`). */
function optionKey(flag: FlagSpec): string {
  return flag.flag.slice(2).replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * The JSON value of option `name`: inline JSON, or `@file.json` read relative to `cwd`. A missing
 * file is `not_found`; an unreadable one or text that is not JSON `invalid_request`.
 */
async function readJsonOption(name: string, value: string, cwd: string): Promise<unknown> {
  let text = value;
  let what = `The ${name} value`;
  if (value.startsWith('@')) {
    const path = resolve(cwd, value.slice(1));
    what = `The ${name === '--input' ? 'input' : name} file ${path}`;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new ReaError('not_found', `${what} does not exist.`, {
          details: { reason: 'missing', path },
          remediation: `Pass an existing JSON file as ${name} @file.json, or inline JSON.`,
        });
      }
      if (code === 'EACCES' || code === 'EPERM') {
        throw new ReaError('access_denied', `${what} cannot be read.`, {
          details: { path, reason: code },
        });
      }
      throw new ReaError('invalid_request', `${what} cannot be read (${code ?? 'error'}).`, {
        details: { path, reason: code ?? 'unreadable' },
      });
    }
  }
  return parseJsonText(text, what);
}

function coerce(flag: FlagSpec, raw: string): unknown {
  if (flag.type === 'number') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n)) {
      throw new ReaError('invalid_request', `${flag.flag} expects a number, got "${raw}".`, {
        details: { issues: [{ path: flag.property, message: 'expected a number' }] },
      });
    }
    return n;
  }
  return raw;
}

/**
 * Builds a tool input: `--input` first, then each given flag overrides its property, then the
 * positional. Values are coerced to the flag's type; the contract's schema validates the result.
 */
export function mergeInput(
  spec: CommandSpec,
  base: Record<string, unknown>,
  options: Record<string, unknown>,
  positional: string | undefined,
): Record<string, unknown> {
  const input: Record<string, unknown> = { ...base };
  for (const flag of spec.flags) {
    const value = options[optionKey(flag)];
    if (value === undefined) continue;
    if (flag.type === 'boolean') input[flag.property] = value === true;
    else if (flag.type === 'json') input[flag.property] = value;
    else if (flag.repeatable) input[flag.property] = (value as string[]).map((v) => coerce(flag, v));
    else input[flag.property] = coerce(flag, value as string);
  }
  if (positional !== undefined && spec.positional !== null) {
    if (input[spec.positional] !== undefined && input[spec.positional] !== positional) {
      throw new ReaError(
        'invalid_request',
        `${spec.positional} was given twice with different values (positional and flag or --input).`,
        { details: { issues: [{ path: spec.positional, message: 'given twice' }] } },
      );
    }
    input[spec.positional] = positional;
  }
  return input;
}

/**
 * Refuses, as a usage error, an input that lacks a property the command's tool requires: named by the
 * flag that gives it (and its positional place, when it has one), before the tool is run, so that the
 * message speaks of the command line rather than of the tool's input schema.
 */
export function checkRequired(spec: CommandSpec, input: Record<string, unknown>): void {
  const missing = spec.flags.filter((flag) => flag.required && input[flag.property] === undefined);
  if (missing.length === 0) return;
  const named = missing.map((flag) =>
    flag.property === spec.positional ? `<${flag.property}> or ${flag.flag}` : flag.flag,
  );
  const inInput = missing.map((flag) => `"${flag.property}"`).join(' and ');
  throw new ReaError(
    'invalid_request',
    `rea ${spec.command} needs ${named.join(' and ')} (or ${inInput} in --input).`,
    {
      details: { issues: missing.map((flag) => ({ path: flag.property, message: 'required' })) },
      remediation: `Run \`rea ${spec.command} --help\` for what each option takes, with examples.`,
    },
  );
}

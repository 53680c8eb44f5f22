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
  let text = value;
  let what = 'The --input value';
  if (value.startsWith('@')) {
    const path = resolve(cwd, value.slice(1));
    what = `The input file ${path}`;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new ReaError('not_found', `The input file ${path} does not exist.`, {
          details: { reason: 'missing', path },
          remediation: 'Pass an existing JSON file as --input @file.json, or inline JSON.',
        });
      }
      if (code === 'EACCES' || code === 'EPERM') {
        throw new ReaError('access_denied', `The input file ${path} cannot be read.`, {
          details: { path, reason: code },
        });
      }
      throw new ReaError('invalid_request', `The input file ${path} cannot be read (${code ?? 'error'}).`, {
        details: { path, reason: code ?? 'unreadable' },
      });
    }
  }
  const parsed = parseJsonText(text, what);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ReaError('invalid_request', `${what} must be a JSON object.`, {
      details: { reason: 'not-an-object' },
    });
  }
  return parsed as Record<string, unknown>;
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
    const key = flag.flag.slice(2).replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    const value = options[key];
    if (value === undefined) continue;
    if (flag.type === 'boolean') input[flag.property] = value === true;
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

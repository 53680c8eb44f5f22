import type { AnyToolContract } from '@rea/provider-kit';
import type { CommandSpec } from './commandSpec.js';

/** The target path the examples of target commands use: what a user types is the path of their own binary. */
export const EXAMPLE_TARGET = './program';

/** How many examples a command's help shows. */
const SHOWN = 2;

/** A shell word for `value`: as it is when it needs no quoting, else in single quotes. */
export function shellWord(value: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** True when an input refers to Evidence retained earlier in the same session (an MCP connection). */
function refersToRetained(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(refersToRetained);
  const record = value as Record<string, unknown>;
  return record['kind'] === 'retained-evidence' || Object.values(record).some(refersToRetained);
}

/**
 * One example input as the command line a user types: the target path first for target commands,
 * then the positional, one flag per scalar property, and `--input` with whatever only JSON can carry.
 */
export function commandLineOf(spec: CommandSpec, input: Record<string, unknown>): string {
  const words = ['rea', spec.command];
  const rest: Record<string, unknown> = { ...input };
  if (spec.needsTarget) words.push(EXAMPLE_TARGET);
  if (spec.positional !== null && typeof rest[spec.positional] === 'string') {
    words.push(shellWord(rest[spec.positional] as string));
    delete rest[spec.positional];
  }
  for (const flag of spec.flags) {
    const value = rest[flag.property];
    // A JSON value stays in --input, which carries every JSON form as it is.
    if (value === undefined || flag.type === 'json') continue;
    const values = flag.repeatable && Array.isArray(value) ? value : [value];
    if (flag.type === 'boolean' && typeof value === 'boolean') {
      words.push(value ? flag.flag : `--no-${flag.flag.slice(2)}`);
    } else if (values.every((v) => typeof v === 'string' || typeof v === 'number')) {
      for (const v of values) words.push(flag.flag, shellWord(String(v)));
    } else continue;
    delete rest[flag.property];
  }
  if (Object.keys(rest).length > 0) words.push('--input', shellWord(JSON.stringify(rest)));
  return words.join(' ');
}

/**
 * The examples a command's help and `rea --llms` show: the contract's advertised examples that can run
 * in one command-line invocation, as command lines. Examples that refer to Evidence retained earlier
 * in an MCP session are left out: an invocation starts with none.
 */
export function commandLineExamples(contract: AnyToolContract, spec: CommandSpec): string[] {
  return contract.examples
    .filter((example) => example.advertised !== false && !refersToRetained(example.input))
    .slice(0, SHOWN)
    .map((example) => commandLineOf(spec, example.input as Record<string, unknown>));
}

/**
 * The examples section of a help text, printed after the options and never wrapped, so that every
 * example stays one line a user can copy.
 */
export function examplesHelp(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}\n`;
}

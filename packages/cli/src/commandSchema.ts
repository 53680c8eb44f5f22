import type { Command } from 'commander';

/** Options every command has that are not part of its input. */
const NOT_INPUT = new Set(['--help', '--schema', '--version']);

/**
 * The input of a hand-written command as a JSON Schema, derived from its declaration like the schema
 * of a generated command: each argument and option is a property (kebab-case flags as snake_case
 * names), typed by what it accepts, with its choices, default and description. What `<command>
 * --schema` prints for `analyze`, `catalog` and the other hand-written commands.
 */
export function commandJsonSchema(command: Command): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const argument of command.registeredArguments) {
    const name = argument.name().replace(/-/g, '_');
    const choices = argument.argChoices;
    properties[name] = {
      ...(choices ? { enum: [...choices] } : { type: 'string' }),
      description: `${argument.description} (positional)`.trim(),
    };
    if (argument.required) required.push(name);
  }
  for (const option of command.options) {
    if (option.long === undefined || NOT_INPUT.has(option.long) || option.hidden) continue;
    const name = option.long.replace(/^--(no-)?/, '').replace(/-/g, '_');
    if (option.negate && properties[name] !== undefined) continue;
    const choices = option.argChoices;
    const type = option.isBoolean() ? { type: 'boolean' } : choices ? { enum: [...choices] } : { type: 'string' };
    const repeatable = option.variadic || /repeatable/i.test(option.description);
    properties[name] = {
      ...(repeatable && !option.isBoolean() ? { type: 'array', items: type } : type),
      ...(option.defaultValue !== undefined ? { default: option.defaultValue as unknown } : {}),
      description: `${option.description} (${option.long})`,
    };
    if (option.mandatory) required.push(name);
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `rea ${command.name()}`,
    description: command.description(),
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

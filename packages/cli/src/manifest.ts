import type { AnyToolContract } from '@rea/provider-kit';
import { commandSpecOf } from './commandSpec.js';
import { EXIT_CODES } from './exitCodes.js';
import { commandLineExamples } from './examples.js';
import type { CliPackageInfo } from './host.js';
import { inputJsonSchema } from './toolCommands.js';

/** A hand-written command as the manifest and help describe it. */
export interface BuiltinCommandInfo {
  command: string;
  usage: string;
  description: string;
}

/** The hand-written commands, in help order. Generated commands never take these names. */
export const BUILTIN_COMMANDS: readonly BuiltinCommandInfo[] = [
  {
    command: 'analyze',
    usage: 'rea analyze <path> [--format json] [--export <file>] [--quiet]',
    description:
      'Detects what <path> is (native binary, Android package or DEX file, archive/ASAR, application directory or JavaScript file, evidence bundle), runs the matching overview tools and prints one report with the evidence ids.',
  },
  {
    command: 'catalog',
    usage: 'rea catalog [--profile full|compact] [--format json]',
    description: 'Prints the advertised tool catalog (as MCP tools/list returns it) and its digest.',
  },
  {
    command: 'completion',
    usage: 'rea completion bash|zsh|fish',
    description:
      "Prints the shell completion script for bash, zsh or fish, generated from this installation's commands, options and choices.",
  },
  {
    command: 'doctor',
    usage: 'rea doctor [--json]',
    description:
      "Read-only health report: Node.js version, each provider's readiness (never starting an engine) and REA's registration in each MCP client's configuration.",
  },
  {
    command: 'inspect-evidence-bundle',
    usage:
      'rea inspect-evidence-bundle <path> [--detail complete|summary] [--evidence-id <id>] [--operation <tool>] [--target-sha256 <sha256>] [--analysis-profile-digest <digest>] [--procedure-address <address>] [--format json]',
    description:
      'Validates an exported evidence bundle and prints its records, or one summary per record with --detail summary, optionally narrowed by filters.',
  },
  {
    command: 'mcp',
    usage: 'rea mcp [--http [host:]port]',
    description: 'Runs the MCP server over stdio, or over Streamable HTTP with --http.',
  },
  {
    command: 'setup',
    usage: 'rea setup [--client <id>]... [--dry-run] [--yes] [--json]',
    description:
      "Adds or updates REA's registration in MCP clients' configuration files: prints the plan, asks, backs up, writes atomically, verifies.",
  },
];

/**
 * The machine-readable manifest printed by `rea --llms`: every command with its flags, positional,
 * input schema and examples, the hand-written commands, and the exit-code table.
 */
export async function llmsManifest(pkg: CliPackageInfo, tools: readonly AnyToolContract[]): Promise<unknown> {
  const builtin = new Set(BUILTIN_COMMANDS.map((c) => c.command));
  const commands = tools.filter((tool) => !builtin.has(commandSpecOf(tool).command));
  const schemas = await Promise.all(commands.map((tool) => inputJsonSchema(tool)));
  return {
    name: pkg.name,
    version: pkg.version,
    usage:
      'rea <command> [target] [positional] [--flag value]... [--input <json>|@file.json] [--format human|json] [--quiet]',
    input_rules: [
      'Top-level scalar inputs are flags (snake_case property → --kebab-case flag); the first required string property is also positional. Objects, arrays of objects and unions are flags of type json: their JSON value inline, or @file.json.',
      'Commands that analyse a binary (needs_target) take its path as the first positional argument, or as --target <path>; the invocation opens it (the provider chosen by --provider, else REA_ANALYSIS_PROVIDER, else auto), runs the command and closes it.',
      '--input takes the whole input as JSON (or @file.json); flags and the positional override its properties.',
      '--format json prints exactly the Evidence record (or plain result) on stdout, or the {"error": …} diagnostic.',
      '<command> --schema prints the input JSON Schema.',
      'Progress goes to stderr only when it is a terminal; --quiet silences it.',
    ],
    exit_codes: EXIT_CODES,
    builtin_commands: BUILTIN_COMMANDS,
    commands: commands.map((tool, index) => {
      const spec = commandSpecOf(tool);
      return {
        command: spec.command,
        tool: tool.name,
        title: tool.title,
        description: tool.description,
        produces: tool.produces,
        annotations: tool.annotations,
        needs_target: spec.needsTarget,
        positional: spec.positional,
        flags: spec.flags.map((f) => ({
          flag: f.flag,
          property: f.property,
          type: f.type,
          ...(f.choices.length > 0 ? { choices: f.choices } : {}),
          repeatable: f.repeatable,
          required: f.required,
          description: f.description,
        })),
        input_only: spec.jsonOnly,
        input_schema: schemas[index],
        examples: commandLineExamples(tool, spec),
      };
    }),
  };
}

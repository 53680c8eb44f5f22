import { Command, Option } from 'commander';
import { executeTool } from '@rea/provider-kit';
import type { AnyToolContract } from '@rea/provider-kit';
import { commandName, commandSpecOf } from './commandSpec.js';
import type { CommandSpec, FlagSpec } from './commandSpec.js';
import { formatEvidence, formatResult } from './format.js';
import type { OutputFormat } from './format.js';
import { checkRequired, mergeInput, readInputOption, readJsonFlags } from './input.js';
import type { Invocation } from './invocation.js';
import { openTarget } from './target.js';
import type { OpenedTarget } from './target.js';
import { ReaError, normalizeError } from '@rea/evidence';
import { resolve } from 'node:path';
import { commandLineExamples, examplesHelp } from './examples.js';
import { runSessionCommand } from './sessionCommands.js';

/** Options every generated command accepts, besides its own flags. */
export interface CommonToolOptions {
  input?: string;
  target?: string;
  provider?: string;
  format: OutputFormat;
  quiet?: boolean;
  schema?: boolean;
}

/**
 * The input JSON Schema of a contract as MCP advertises it (full profile): what `--schema` prints.
 * The projection loads on first use, so commands that never print a schema do not pay for it.
 */
export async function inputJsonSchema(contract: AnyToolContract): Promise<unknown> {
  const { inputJsonSchema: project } = await import('@rea/schema');
  return project(contract.input, 'full').schema;
}

function flagOption(flag: FlagSpec): Option[] {
  const description = `${flag.description}${flag.required ? ' (required)' : ''}`;
  if (flag.type === 'boolean') {
    return [
      new Option(flag.flag, description),
      new Option(`--no-${flag.flag.slice(2)}`, `set ${flag.property} to false`),
    ];
  }
  const placeholder =
    flag.type === 'number' ? 'number' : flag.type === 'enum' ? 'choice' : flag.type === 'json' ? 'json' : 'value';
  const how = flag.repeatable ? ' (repeatable)' : flag.type === 'json' ? ' (JSON, or @file.json)' : '';
  const option = new Option(`${flag.flag} <${placeholder}>`, `${description}${how}`);
  if (flag.type === 'enum') option.choices(flag.choices);
  if (flag.repeatable)
    option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  return [option];
}

/**
 * Tools whose commands take `--target` and `--provider` although they run without a target:
 * binary_session reports the session a target opens into; open_binary takes them as spellings of
 * `path` and `provider_id`.
 */
const SESSION_TOOLS: ReadonlySet<string> = new Set(['binary_session', 'open_binary']);

/**
 * Adds the options every generated command shares (`--input`, `--format`, `--quiet`, `--schema`), and
 * `--target` and `--provider` to the commands of tools that use the open target (`withTarget`): on any
 * other command they would open a binary for nothing.
 */
export function addCommonOptions(command: Command, withTarget: boolean): Command {
  command
    .addOption(new Option('--input <json>', 'the whole input as JSON, or @file.json to read it from a file'))
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'json']).default('human'));
  if (withTarget) {
    command
      .addOption(
        new Option(
          '--target <path>',
          'open this binary first, as open_binary does, for tools that analyse the active target',
        ),
      )
      .addOption(
        new Option(
          '--provider <id>',
          'deep-analysis provider for --target: an id or auto (default: REA_ANALYSIS_PROVIDER, else auto)',
        ),
      );
  }
  return command
    .addOption(new Option('--quiet', 'no progress or warnings on stderr'))
    .addOption(new Option('--schema', "print this command's input JSON Schema and exit"));
}

/** Runs one contract with an assembled input and prints the outcome in the chosen format. */
export async function runContract(
  invocation: Invocation,
  contract: AnyToolContract,
  input: unknown,
  options: { format: OutputFormat; quiet: boolean; session?: OpenedTarget['view'] },
): Promise<void> {
  const context = invocation.toolContext(options.quiet, options.session);
  try {
    const outcome = await executeTool(contract, input, context);
    context.progress.clear();
    if (outcome.kind === 'evidence') {
      await invocation.ledger.retainAsync(outcome.record, invocation.scope.signal);
      await invocation.out(
        options.format === 'json' ? `${JSON.stringify(outcome.record, null, 2)}\n` : formatEvidence(outcome.record),
      );
    } else {
      await invocation.out(
        options.format === 'json'
          ? `${JSON.stringify(outcome.value, null, 2)}\n`
          : formatResult(contract.name, outcome.value),
      );
      const empty =
        contract.name === 'export_evidence_bundle' && (outcome.value as { record_count?: unknown }).record_count === 0;
      if (empty && !options.quiet) invocation.note(`rea: note: ${EMPTY_EXPORT}`);
    }
  } finally {
    context.progress.clear();
  }
}

/** What a command's help adds for the command line, for tools whose meaning differs there. */
/** Why a bundle exported by `rea export-evidence-bundle` holds nothing, and how to keep records. */
const EMPTY_EXPORT =
  'On the command line every invocation is one session, and this one has retained nothing before it exports: the bundle holds no record. To keep the Evidence of an analysis, export it in the same run (`rea analyze <path> --export <file>`), or use an MCP session (rea mcp), where Evidence stays retained between calls.';

const COMMAND_LINE_NOTES: Readonly<Record<string, string>> = {
  open_binary:
    'On the command line every invocation is one session: open-binary opens the target with the chosen provider, prints the target identity, the binding and the run, and closes it again. To analyse a binary, give its path to the analysis command itself, e.g. `rea list-procedures <path>`.',
  close_binary:
    'On the command line every invocation is one session: each command closes its own target and discards its Evidence when it ends, so close-binary finds nothing open. It matters in an MCP session (rea mcp).',
  export_evidence_bundle: EMPTY_EXPORT,
};

/**
 * What the help of a command taking Evidence as input adds: a command-line invocation is one session,
 * with nothing retained to refer to, so each record is given whole, from a file a command wrote.
 */
function evidenceInputNote(spec: CommandSpec): string {
  const flags = spec.flags.filter((f) => f.type === 'json' && f.description.includes('retained-evidence'));
  if (flags.length === 0) return '';
  // The operation whose Evidence the flags take, when their descriptions name one.
  const operation = flags.map((f) => /\b([a-z]+(?:_[a-z]+)+) Evidence\b/.exec(f.description)?.[1]).find(Boolean);
  const producer = operation === undefined ? '<command>' : commandName(operation);
  const example = flags.map((f) => `${f.flag} @${f.property}.json`).join(' ');
  return `\n\nOn the command line every invocation is one session, with no retained Evidence to refer to: give ${flags.map((f) => f.flag).join(' and ')} as whole records, the JSON that the producing command prints with --format json (for example \`rea ${producer} … --format json > ${flags[0]!.property}.json\`), then \`rea ${spec.command} ${example}\`.`;
}

function describeCommand(contract: AnyToolContract, spec: CommandSpec): string {
  const jsonOnly = spec.jsonOnly.length > 0 ? `\n\nGiven through --input only: ${spec.jsonOnly.join(', ')}.` : '';
  const target = spec.needsTarget
    ? `\n\nAnalyses a binary: give its path first (or as --target <path>); REA opens it as open-binary does, with the provider chosen by --provider, runs the command and closes it.`
    : '';
  const note = COMMAND_LINE_NOTES[contract.name];
  return `${contract.title}\n\n${contract.description}${jsonOnly}${evidenceInputNote(spec)}${target}${note ? `\n\n${note}` : ''}`;
}

/** Splits the positional arguments of a command into the target path and the tool's own positional. */
function positionals(
  spec: CommandSpec,
  values: readonly (string | undefined)[],
  targetOption: string | undefined,
): { target: string | undefined; positional: string | undefined } {
  if (!spec.needsTarget) return { target: targetOption, positional: values[0] };
  const [first, second] = values;
  if (targetOption === undefined) return { target: first, positional: second };
  const extra = spec.positional === null ? first : second;
  if (extra !== undefined) {
    throw new ReaError('invalid_request', `The target was given twice: as ${extra} and as --target ${targetOption}.`, {
      details: { issues: [{ path: 'target', message: 'given twice' }] },
      remediation: `Give the binary once: rea ${spec.command} <path>${spec.positional ? ` [${spec.positional}]` : ''}.`,
    });
  }
  return { target: targetOption, positional: first };
}

/** A command that analyses a binary run without its path: a usage error (exit 2), as a missing argument is. */
function missingTarget(contract: AnyToolContract, spec: CommandSpec): ReaError {
  return new ReaError(
    'invalid_request',
    `${spec.command} analyses a binary: give its path, as in \`rea ${spec.command} <path>${spec.positional ? ` <${spec.positional}>` : ''}\`.`,
    {
      operation: contract.name,
      details: { issues: [{ path: 'target', message: 'the path of the binary to analyse is required' }] },
      remediation: `Run rea ${spec.command} <path>${spec.positional ? ` <${spec.positional}>` : ''} (or pass --target <path>); --provider <id> chooses the engine.`,
    },
  );
}

/**
 * Builds the command of one contract: the target path first for tools that analyse a target, its
 * flags and positional from {@link commandSpecOf}, the common options, and an action that assembles
 * the input, opens the target if there is one, runs the tool and prints the result.
 */
export function toolCommand(invocation: Invocation, contract: AnyToolContract): Command {
  const spec = commandSpecOf(contract);
  const command = new Command(spec.command)
    .summary(contract.title)
    .description(describeCommand(contract, spec))
    .addHelpText('after', examplesHelp(commandLineExamples(contract, spec)));
  if (spec.needsTarget) command.argument('[target]', 'path of the binary to analyse (or --target <path>)');
  if (spec.positional !== null) {
    const flag = spec.flags.find((f) => f.property === spec.positional);
    command.argument(`[${spec.positional}]`, flag?.description ?? spec.positional);
  }
  for (const flag of spec.flags) for (const option of flagOption(flag)) command.addOption(option);
  addCommonOptions(command, spec.needsTarget || SESSION_TOOLS.has(contract.name));
  const count = (spec.needsTarget ? 1 : 0) + (spec.positional !== null ? 1 : 0);
  command.action(async (...args: unknown[]) => {
    const options = args[count] as CommonToolOptions & Record<string, unknown>;
    if (options.schema) {
      await invocation.out(`${JSON.stringify(await inputJsonSchema(contract), null, 2)}\n`);
      return;
    }
    const given = positionals(spec, args.slice(0, count) as Array<string | undefined>, options.target);
    const base = options.input !== undefined ? await readInputOption(options.input, invocation.io.cwd) : {};
    const input = mergeInput(spec, base, await readJsonFlags(spec, options, invocation.io.cwd), given.positional);
    const quiet = options.quiet === true;
    if (contract.name === 'open_binary' || contract.name === 'close_binary') {
      checkRequired(spec, input);
      await runSessionCommand(invocation, contract, input, {
        format: options.format,
        quiet,
        provider: options.provider,
        target: given.target,
      });
      return;
    }
    if (given.target === undefined) {
      if (spec.needsTarget) throw missingTarget(contract, spec);
      if (options.provider !== undefined) {
        throw new ReaError('invalid_request', '--provider chooses the engine for --target; pass --target <path> too.', {
          details: { issues: [{ path: 'provider', message: 'needs --target' }] },
        });
      }
      checkRequired(spec, input);
      await runContract(invocation, contract, input, { format: options.format, quiet });
      return;
    }
    checkRequired(spec, input);
    const progress = invocation.toolContext(quiet).progress;
    let opened: OpenedTarget;
    try {
      opened = await openTarget({
        path: resolve(invocation.io.cwd, given.target),
        provider: options.provider,
        // The deep providers (any may open the target) and the one contributing this tool, if any.
        providers: await (invocation.host.loadProvidersFor?.([contract.name]) ?? invocation.host.loadProviders()),
        env: invocation.io.env,
        signal: invocation.scope.signal,
        progress,
      });
    } catch (error) {
      // Opening the target is this command's first step: its failure is the command's.
      throw normalizeError(error, contract.name);
    } finally {
      progress.clear();
    }
    try {
      await runContract(invocation, contract, input, { format: options.format, quiet, session: opened.view });
    } finally {
      await opened.close();
    }
  });
  return command;
}

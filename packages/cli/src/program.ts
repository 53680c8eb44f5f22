import { Readable } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { ReaError, isReaError, toDiagnostic } from '@rea/evidence';
import type { Diagnostic } from '@rea/evidence';
import type { AnyToolContract } from '@rea/provider-kit';
import { commandJsonSchema } from './commandSchema.js';
import { commandSpecOf } from './commandSpec.js';
import { EXIT_CODES, exitCodeFor } from './exitCodes.js';
import { formatDiagnostic } from './format.js';
import type { CliHost, CliIo } from './host.js';
import { createInvocation } from './invocation.js';
import type { Invocation } from './invocation.js';
import { BUILTIN_COMMANDS, llmsManifest } from './manifest.js';
import { mcpCommand } from './commands/mcp.js';
import { checkSettingsBefore } from './settingsCheck.js';
import { toolCommand } from './toolCommands.js';

/** Every exit status with what it means (`2 invalid request or usage`), for the help's last line. */
const EXIT_STATUS_TEXT = Object.entries(EXIT_CODES)
  .map(
    ([code, status]) =>
      `${status} ${code === 'invalid_request' ? 'invalid request or usage' : code.replace(/_/g, ' ')}`,
  )
  .join(', ');

const BUILTIN_NAMES = new Set(BUILTIN_COMMANDS.map((c) => c.command));

type CommandFactory = (invocation: Invocation) => Command | Promise<Command>;

const HANDWRITTEN: Record<string, CommandFactory> = {
  analyze: async (inv) => (await import('./commands/analyze.js')).analyzeCommand(inv),
  catalog: async (inv) => (await import('./commands/catalog.js')).catalogCommand(inv),
  completion: async (inv) => (await import('./commands/completion.js')).completionCommand(inv),
  doctor: async (inv) => (await import('./commands/doctor.js')).doctorCommand(inv),
  'inspect-evidence-bundle': async (inv) => (await import('./commands/bundle.js')).inspectBundleCommand(inv),
  mcp: mcpCommand,
  setup: async (inv) => (await import('./commands/setup.js')).setupCommand(inv),
};

/** True when the invocation asked for JSON output, so that even usage errors come out as JSON. */
function wantsJson(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === '--json' || a === '--format=json' || (a === '--format' && argv[i + 1] === 'json'));
}

/** True when `--schema` comes before any `--` (after which words are operands). */
function asksForSchema(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return argv.slice(0, end === -1 ? argv.length : end).includes('--schema');
}

/** Builds the `rea` program: the hand-written commands, plus one generated command per contract. */
export async function buildProgram(
  invocation: Invocation,
  tools: readonly AnyToolContract[] | null,
  only?: string,
): Promise<Command> {
  const { io, host } = invocation;
  const program = new Command('rea')
    .description(
      'REA — reverse engineer anything. Investigate native binaries, applications, archives and packages; every answer is an Evidence record.',
    )
    .version(host.package.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .usage('<command> [options]')
    .addHelpText(
      'after',
      '\nRun `rea <command> --help` for a command, `rea <command> --schema` for its input schema, `rea --llms` for a machine-readable manifest.\nWith no arguments, REA prints this help on a terminal and serves MCP over stdio otherwise.\n' +
        `Exit status: ${EXIT_STATUS_TEXT}.`,
    )
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
      outputError: () => undefined,
      // A fixed width keeps help identical on every terminal (the bin prints a precomputed copy).
      getOutHelpWidth: () => 100,
      getErrHelpWidth: () => 100,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .exitOverride()
    .showSuggestionAfterError(true)
    // After the command line parsed (usage errors come first), before the command runs.
    .hook('preAction', (_program, command) => checkSettingsBefore(command, host, io.env));
  const add = (command: Command): void => {
    command.copyInheritedSettings(program);
    program.addCommand(command);
  };
  for (const info of BUILTIN_COMMANDS) {
    const factory = HANDWRITTEN[info.command]!;
    if (only === undefined || only === info.command) {
      const command = await factory(invocation);
      // Every command prints its input schema, as the root help promises.
      if (!command.options.some((o) => o.long === '--schema')) {
        command.option('--schema', "print this command's input JSON Schema and exit");
      }
      add(command);
    } else add(new Command(info.command).summary(info.description.split('. ')[0]!.toLowerCase()));
  }
  for (const tool of tools ?? []) {
    if (!BUILTIN_NAMES.has(commandSpecOf(tool).command)) add(toolCommand(invocation, tool));
  }
  return program;
}

/**
 * The text `rea --help` prints for this host and catalog. The `rea` bin prints a precomputed copy so
 * that `--help` loads nothing; a test keeps that copy equal to this.
 */
export async function renderHelp(host: CliHost, tools: readonly AnyToolContract[]): Promise<string> {
  let text = '';
  const sink = {
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
  };
  const io: CliIo = {
    stdout: sink,
    stderr: sink,
    // Not process.stdin: touching it opens the stream, which would keep an embedding process alive.
    stdin: Readable.from([]),
    env: {},
    cwd: process.cwd(),
    home: process.cwd(),
    platform: process.platform,
    signals: { on: () => undefined, off: () => undefined },
  };
  const invocation = createInvocation(host, io);
  try {
    const program = await buildProgram(invocation, tools);
    program.outputHelp();
    return text;
  } finally {
    invocation.scope.dispose();
  }
}

function commanderDiagnostic(error: CommanderError): Diagnostic {
  // One line: commander puts its suggestion on a line of its own ("\n(Did you mean --format?)"), which
  // a diagnostic's message would show escaped.
  const message = error.message
    .replace(/^error:\s*/, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ')
    .replace(/\(Did you mean/g, '(did you mean');
  return toDiagnostic(
    new ReaError('invalid_request', message.charAt(0).toUpperCase() + message.slice(1), {
      details: { reason: error.code.replace(/^commander\./, '') },
      remediation: 'Run `rea --help` (or `rea <command> --help`) for the accepted commands and options.',
    }),
  );
}

async function report(invocation: Invocation, diagnostic: Diagnostic, json: boolean): Promise<number> {
  if (json) await invocation.out(`${JSON.stringify(diagnostic, null, 2)}\n`);
  else invocation.io.stderr.write(formatDiagnostic(diagnostic));
  return exitCodeFor(diagnostic.error.code);
}

/**
 * The tools the program needs for an invocation whose first word is `first`: the one tool a tool
 * command names (so `rea inspect-artifact …` builds no other tool's schemas nor loads their providers),
 * else the whole catalog (unknown words, options, `help`: commander's suggestions need every name).
 */
async function toolsFor(host: CliHost, first: string): Promise<readonly AnyToolContract[]> {
  if (host.loadToolsFor !== undefined && /^[a-z][a-z0-9-]*$/.test(first)) {
    const named = await host.loadToolsFor([first.replace(/-/g, '_')]);
    if (named.length === 1 && commandSpecOf(named[0]!).command === first) return named;
  }
  return host.loadTools();
}

/**
 * Runs one `rea` invocation and resolves with its exit status (see EXIT_CODES). This is the CLI's one
 * error boundary: every failure, including usage errors and unexpected exceptions, becomes the
 * `{ "error": … }` diagnostic (on stdout with `--format json`/`--json`, a readable line on stderr
 * otherwise) — never a stack trace. SIGINT/SIGTERM abort the running command; it still cleans up.
 */
export async function runCli(argv: readonly string[], host: CliHost, io: CliIo): Promise<number> {
  const invocation = createInvocation(host, io);
  const json = wantsJson(argv);
  try {
    if (argv.length === 0) {
      if (io.stdin.isTTY === true) argv = ['--help'];
      else argv = ['mcp'];
    }
    const first = argv[0]!;
    if (first === '--llms') {
      const tools = await host.loadTools();
      await invocation.out(`${JSON.stringify(await llmsManifest(host.package, tools), null, 2)}\n`);
      return 0;
    }
    // `completion` describes every command, so it needs the whole program; other hand-written
    // commands load no catalog.
    const builtin = BUILTIN_NAMES.has(first) && first !== 'completion';
    const quick = first === '-V' || first === '--version';
    const tools = builtin || quick ? null : await toolsFor(host, first);
    const program = await buildProgram(invocation, tools, builtin ? first : undefined);
    if (BUILTIN_NAMES.has(first) && asksForSchema(argv)) {
      const command = program.commands.find((c) => c.name() === first)!;
      await invocation.out(`${JSON.stringify(commandJsonSchema(command), null, 2)}\n`);
      return 0;
    }
    // `rea help <word>` for no command is the unknown command it names (exit 2, with a suggestion), as
    // `rea <word>` is; commander would print the general help and succeed.
    const asked = first === 'help' && argv.length === 2 && !argv[1]!.startsWith('-') ? argv[1]! : null;
    const unknownTopic =
      asked !== null && !program.commands.some((c) => c.name() === asked || c.aliases().includes(asked));
    await program.parseAsync(unknownTopic ? [asked!] : [...argv], { from: 'user' });
    return invocation.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return 0;
      return report(invocation, commanderDiagnostic(error), json);
    }
    const aborted = invocation.scope.signal.aborted;
    const diagnostic = toDiagnostic(
      aborted && !(isReaError(error) && error.code !== 'internal') ? invocation.scope.signal.reason : error,
    );
    return report(invocation, diagnostic, json);
  } finally {
    invocation.scope.dispose();
  }
}

import type { Command } from 'commander';

/** One option as shell completion offers it. */
export interface CompletionOption {
  /** `--format`, or `-h`. */
  flag: string;
  description: string;
  /** The option takes a value. */
  takesValue: boolean;
  /** The values it accepts, or null when any value (a path, a number…) is accepted. */
  choices: readonly string[] | null;
}

/** One command as shell completion offers it. */
export interface CompletionCommand {
  name: string;
  summary: string;
  options: readonly CompletionOption[];
  /** The values of its first positional argument, or null when it takes paths (or nothing). */
  positionalChoices: readonly string[] | null;
}

const HELP: readonly CompletionOption[] = [
  { flag: '--help', description: 'show help', takesValue: false, choices: null },
  { flag: '-h', description: 'show help', takesValue: false, choices: null },
];

function optionsOf(command: Command): CompletionOption[] {
  const options: CompletionOption[] = [];
  for (const option of command.options) {
    if (option.hidden) continue;
    const takesValue = option.required || option.optional;
    for (const flag of [option.long, option.short]) {
      if (flag === undefined) continue;
      options.push({ flag, description: option.description, takesValue, choices: option.argChoices ?? null });
    }
  }
  // The help option is built in (commander adds it at parse time), so it is not among the options.
  return [...options, ...HELP.filter((help) => !options.some((o) => o.flag === help.flag))];
}

/**
 * The completion model of the `rea` program: every command (the hand-written ones and one per tool
 * contract, as the program declares them) with its options, their choices and its positional values.
 */
export function completionModel(program: Command): CompletionCommand[] {
  return program.commands
    .filter((command) => command.name() !== 'help')
    .map((command) => ({
      name: command.name(),
      summary: command.summary() || command.description().split('\n')[0]!,
      options: optionsOf(command),
      positionalChoices: command.registeredArguments[0]?.argChoices ?? null,
    }));
}

/** The words `rea` itself completes before a command: the command names and the root options. */
export function rootWords(program: Command, commands: readonly CompletionCommand[]): string[] {
  return [...commands.map((c) => c.name), ...optionsOf(program).map((o) => o.flag)];
}

/** A word in single quotes, for bash, zsh and fish alike. */
export function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One line of description text, for shells that show one beside each candidate. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

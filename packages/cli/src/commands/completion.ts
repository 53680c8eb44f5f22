import { Argument, Command } from 'commander';
import type { Invocation } from '../invocation.js';
import { examplesHelp } from '../examples.js';
import { completionModel, rootWords } from '../completion/model.js';
import { SHELLS, bashScript, fishScript, zshScript } from '../completion/shells.js';
import type { Shell } from '../completion/shells.js';

const WRITERS: Record<Shell, typeof bashScript> = { bash: bashScript, zsh: zshScript, fish: fishScript };

/**
 * `rea completion bash|zsh|fish`: the completion script of one shell, generated from the program
 * itself — every hand-written command and one per tool contract, with their options and choices —
 * so completion always matches the installed catalog.
 */
export function completionCommand(invocation: Invocation): Command {
  return new Command('completion')
    .summary('print the shell completion script (bash, zsh or fish)')
    .description(
      "Prints a completion script for bash, zsh or fish, generated from this installation's commands and their options (every tool contract included): commands, options, option choices and paths.\n\nLoad it for the current shell with `source <(rea completion bash)` (or zsh), or `rea completion fish | source`; save the output in the shell's completion directory to keep it.",
    )
    .addHelpText('after', examplesHelp(['rea completion bash', 'rea completion zsh', 'rea completion fish']))
    .addArgument(new Argument('<shell>', 'the shell to complete for').choices(SHELLS))
    .action(async (shell: Shell, _options: unknown, command: Command) => {
      const program = command.parent!;
      const commands = completionModel(program);
      await invocation.out(WRITERS[shell](rootWords(program, commands), commands));
    });
}

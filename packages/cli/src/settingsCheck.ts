import type { Command } from 'commander';
import { providerSettings, readConfig } from '@rea/provider-kit';
import type { CliHost } from './host.js';

/**
 * The commands that read no setting and so run whatever the environment holds: `doctor` reports an
 * invalid setting rather than failing on it, `setup` writes client registrations and `completion`
 * prints a script. (Help, `--version`, `--llms` and `--schema` run no command action either.)
 */
const READS_NO_SETTINGS: ReadonlySet<string> = new Set(['completion', 'doctor', 'setup']);

/**
 * Checks every setting REA and its providers read (the check `rea mcp` makes at start) before a command
 * that analyses or serves runs, so that an invalid one stops every such command alike, with
 * `configuration_invalid` (exit status 4) naming the first invalid variable, its value and the accepted
 * form — whether or not the command would have read it. The providers' declarations come from the host
 * without creating a provider when it can give them.
 */
export async function checkSettingsBefore(
  command: Command,
  host: CliHost,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  if (READS_NO_SETTINGS.has(command.name()) || command.opts()['schema'] === true) return;
  const declarations = host.providerSettings?.() ?? providerSettings(await host.loadProviders());
  readConfig(env as NodeJS.ProcessEnv, declarations);
}

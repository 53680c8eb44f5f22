import { Command, Option } from 'commander';
import { readConfig } from '@rea/provider-kit';
import type { SchemaProfile } from '@rea/schema';
import type { OutputFormat } from '../format.js';
import type { Invocation } from '../invocation.js';
import { examplesHelp } from '../examples.js';

/** `rea catalog`: the advertised catalog (as `tools/list` returns it) and its digest. */
export function catalogCommand(invocation: Invocation): Command {
  return new Command('catalog')
    .summary('print the advertised tool catalog and its digest')
    .description(
      'Prints the tool catalog exactly as the MCP server advertises it (every tool, sorted, whatever its availability) and the catalog digest (SHA-256 of its canonical JSON). --profile compact renders every input schema within the compact budget.',
    )
    .addHelpText('after', examplesHelp(['rea catalog', 'rea catalog --profile compact --format json']))
    .addOption(
      new Option(
        '--profile <profile>',
        'input schema profile (default: REA_MCP_INPUT_SCHEMA_PROFILE, else full)',
      ).choices(['full', 'compact']),
    )
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'json']).default('human'))
    .action(async (options: { profile?: SchemaProfile; format: OutputFormat }) => {
      // The same profile the server would advertise with this environment, unless one is named.
      const profile = options.profile ?? readConfig(invocation.io.env as NodeJS.ProcessEnv).mcpInputSchemaProfile;
      const tools = await invocation.host.loadTools();
      const { advertiseCatalog } = await import('@rea/schema');
      const catalog = advertiseCatalog(tools, profile);
      if (options.format === 'json') return invocation.out(`${JSON.stringify(catalog, null, 2)}\n`);
      const lines = [
        `${catalog.tools.length} tools, profile ${profile}, digest ${catalog.digest}`,
        ...catalog.tools.map((t) => `  ${t.name.padEnd(36)} ${t.title}${t.reduced ? ' (reduced schema)' : ''}`),
      ];
      return invocation.out(`${lines.join('\n')}\n`);
    });
}

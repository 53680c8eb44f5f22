import { realpathSync } from 'node:fs';
import type { CliHost, LaunchCommand, ServeRequest } from '@rea/cli';
import { readConfig } from '@rea/provider-kit';
import type { AnyToolContract, Provider } from '@rea/provider-kit';
import { readPackageInfo } from './version.js';

/**
 * The command vector MCP clients should run for this installation: `npx -y rea mcp` when REA runs
 * from the npx cache (that path is temporary), otherwise this Node.js binary and this installation's
 * bin script, so the registration keeps working without a PATH lookup.
 */
export function launchCommandFor(script: string | undefined, execPath: string): LaunchCommand {
  if (script === undefined || /[\\/]_npx[\\/]/.test(script)) return { command: 'npx', args: ['-y', 'rea', 'mcp'] };
  let resolved = script;
  try {
    resolved = realpathSync(script);
  } catch {
    // A script path that no longer resolves is still the best description of how we were started.
  }
  return { command: execPath, args: [resolved, 'mcp'] };
}

async function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * The CLI host of the `rea` package: the default providers and catalog (created on first use), the
 * MCP server over stdio or HTTP, provider probes for `rea doctor`, and this installation's launch
 * command. Nothing is loaded until a command asks for it.
 */
export function createReaHost(options: { script?: string | undefined; execPath?: string } = {}): CliHost {
  const pkg = readPackageInfo();
  let providers: Promise<Provider[]> | null = null;
  let tools: Promise<AnyToolContract[]> | null = null;
  // The default composition (providers, tool contracts) loads only when a command needs it.
  const defaults = () => import('./defaults.js');
  const loadProviders = (): Promise<Provider[]> =>
    (providers ??= defaults().then((module) => module.createDefaultProviders()));
  const script = 'script' in options ? options.script : process.argv[1];
  return {
    package: pkg,
    loadTools: () =>
      (tools ??= Promise.all([loadProviders(), defaults()]).then(([list, module]) => module.createDefaultTools(list))),
    loadProviders,
    async serve(request: ServeRequest): Promise<{ cancelledCalls: number }> {
      // Only the server core loads at start: initialize and tools/list are answered from the
      // precomputed advertised catalog; providers and tool contracts load on the first tool call.
      const [server, { loadAdvertisedCatalog }] = await Promise.all([
        import('@rea/server/serve'),
        import('./generated/advertisedCatalog.js'),
      ]);
      const config = readConfig(process.env);
      const serverOptions = {
        load: async () => {
          const [list, composition] = await Promise.all([
            loadProviders(),
            defaults().then((module) => module.createCompositionTools()),
          ]);
          return { providers: list, tools: composition };
        },
        advertised: await loadAdvertisedCatalog(config.mcpInputSchemaProfile),
        config,
        package: pkg,
        serverPath: script ?? null,
      };
      if (request.transport === 'stdio') {
        const handle = await server.runStdioServer(serverOptions);
        await Promise.race([handle.closed, waitForAbort(request.signal)]);
        return { cancelledCalls: (await handle.close()).cancelled_calls };
      }
      const allowedHosts = request.allowedHosts ?? [];
      const handle = await server.runHttpServer({
        ...serverOptions,
        host: request.host,
        port: request.port,
        allowedHosts,
        allowNonLoopback: allowedHosts.length > 0,
      });
      process.stderr.write(`rea: MCP over Streamable HTTP at ${handle.url}\n`);
      await waitForAbort(request.signal);
      return { cancelledCalls: (await handle.close()).cancelled_calls };
    },
    launchCommand: () => launchCommandFor(script, options.execPath ?? process.execPath),
  };
}

import { realpathSync } from 'node:fs';
import type { CliHost, LaunchCommand, ServeRequest } from '@rea/cli';
import { ReaError, isReaError } from '@rea/evidence';
import { readConfig } from '@rea/provider-kit';
import type { AnyToolContract, Provider } from '@rea/provider-kit';
import { DEFAULT_PROVIDER_SETTINGS } from './settings.js';
import { readPackageInfo } from './version.js';

/**
 * The one registration of REA in an MCP client, the one the README shows, `rea setup` writes and
 * `rea doctor` checks: the published package through npx (`npx -y rea-mcp mcp`). It names no path of
 * an installation, so it keeps working when a project's node_modules or the npx cache is removed.
 */
export function registrationCommand(packageName: string = readPackageInfo().name): LaunchCommand {
  return { command: 'npx', args: ['-y', packageName, 'mcp'] };
}

/** The real path of the running bin script (as binary_session reports it), or null. */
function entryPathOf(script: string | undefined): string | null {
  if (script === undefined) return null;
  try {
    return realpathSync(script);
  } catch {
    // A script path that no longer resolves is still the best description of how we were started.
    return script;
  }
}

async function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * The CLI host of the `rea-mcp` package: the default providers and catalog (created on first use), the
 * MCP server over stdio or HTTP, provider probes for `rea doctor`, and the registration clients use. Nothing is loaded until a command asks for it.
 */
export function createReaHost(options: { script?: string | undefined } = {}): CliHost {
  const pkg = readPackageInfo();
  let providers: Promise<Provider[]> | null = null;
  let tools: Promise<AnyToolContract[]> | null = null;
  // Every provider created so far, by id: a subset made for a few tools is reused by the complete list.
  const created = new Map<string, Provider>();
  // The default composition (providers, tool contracts) loads only when a command needs it.
  const defaults = () => import('./defaults.js');
  const loadProviders = (): Promise<Provider[]> =>
    (providers ??= defaults().then((module) => module.createDefaultProvidersReusing(created)));
  const loadProvidersFor = async (names: readonly string[]): Promise<Provider[]> =>
    providers ?? (await defaults()).createProvidersFor(names, created);
  const script = 'script' in options ? options.script : process.argv[1];
  return {
    package: pkg,
    loadTools: () =>
      (tools ??= Promise.all([loadProviders(), defaults()]).then(([list, module]) => module.createDefaultTools(list))),
    loadProviders,
    providerSettings: () => DEFAULT_PROVIDER_SETTINGS,
    loadProvidersFor,
    async loadToolsFor(names: readonly string[]): Promise<AnyToolContract[]> {
      if (tools !== null) return (await tools).filter((tool) => names.includes(tool.name));
      // Only the providers contributing the named tools: the deep ones (which contribute none) load
      // with a target, through loadProvidersFor.
      const module = await defaults();
      const list = providers ?? (await module.createProvidersFor(names, created, { deep: false }));
      return module.createToolsFor(names, await list);
    },
    async serve(request: ServeRequest): Promise<{ cancelledCalls: number }> {
      // Only the server core loads at start: initialize and tools/list are answered from the
      // precomputed advertised catalog; providers and tool contracts load on the first tool call.
      const [server, { loadAdvertisedCatalog }] = await Promise.all([
        import('@rea/server/serve'),
        import('./generated/advertisedCatalog.js'),
      ]);
      // REA's settings and every default provider's, validated now: an invalid value fails the start.
      const config = readConfig(process.env, DEFAULT_PROVIDER_SETTINGS);
      const serverOptions = {
        // The deep providers load with the first tool call; the composition's tools and each tools-only
        // provider with the first call of one of their tools.
        load: async () => {
          const module = await defaults();
          const [list, deferred] = await Promise.all([
            module.createDeepProvidersReusing(created),
            module.createDeferredTools(created),
          ]);
          return { providers: list, deferred };
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
      const handle = await server
        .runHttpServer({
          ...serverOptions,
          host: request.host,
          port: request.port,
          allowedHosts,
          allowNonLoopback: allowedHosts.length > 0,
        })
        .catch((error: unknown) => {
          throw refusedBindAdvice(error);
        });
      process.stderr.write(`rea: MCP over Streamable HTTP at ${handle.url}\n`);
      await waitForAbort(request.signal);
      return { cancelledCalls: (await handle.close()).cancelled_calls };
    },
    launchCommand: () => registrationCommand(pkg.name),
    entryPath: () => entryPathOf(script),
    extractZip: async (path, parentDirectory, signal) =>
      (await defaults()).extractZipPackage(path, parentDirectory, signal),
  };
}

/**
 * The server's refusal of a non-loopback bind, with advice in the command line's own terms (its
 * remediation names the library's options); any other error as it is.
 */
function refusedBindAdvice(error: unknown): unknown {
  if (!isReaError(error) || error.details['reason'] !== 'non-loopback') return error;
  const host = String(error.details['host']);
  const shown = host.includes(':') ? `[${host}]` : host;
  return new ReaError(error.code, error.message, {
    details: error.details,
    remediation:
      'Bind a loopback address (127.0.0.1 is the default). To serve other machines, name each host name ' +
      `clients will use to reach this one: rea mcp --http ${shown}:PORT --allow-host <name>. Requests ` +
      'naming any other Host are refused.',
  });
}

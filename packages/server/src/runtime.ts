import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProviderRegistry, readConfig, sortCatalog } from '@rea/provider-kit';
import type { AnyToolContract, Logger, Provider, ProviderRegistry, ReaConfig } from '@rea/provider-kit';
import { advertiseCatalog } from './advertise.js';
import type { AdvertisedCatalog } from '@rea/schema';
import { ReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import { createStderrLogger } from './logger.js';
import type { LogForwarder } from './logger.js';
import { SERVER_TOOLS } from './tools/index.js';

/** Options of {@link createReaServer}: what the composition root hands the server. */
export interface ReaServerOptions {
  /** Every provider, deep and tools-only; their tools join the catalog. */
  providers: readonly Provider[];
  /** Extra tool contracts beyond the server's own and the providers'. */
  tools?: readonly AnyToolContract[];
  /** The package users installed (reported by binary_session), e.g. `{ name: "rea", version }`. */
  package: { name: string; version: string };
  /** Settings (`readConfig` of @rea/provider-kit); read from `env` once when omitted. */
  config?: ReaConfig;
  /** Where log entries go; defaults to JSON lines on stderr. MCP logging is added per connection. */
  logger?: Logger;
  /** Environment to read settings from; defaults to `process.env`. Read once. */
  env?: NodeJS.ProcessEnv;
  /** The server entry path reported and compared by binary_session; defaults to `process.argv[1]`. */
  serverPath?: string | null;
  /**
   * The advertised catalog, projected ahead of time with `advertiseCatalog` of @rea/schema from exactly
   * this catalog (server tools, `tools`, providers' tools) in the configured profile. Projection is the
   * costliest part of a cold `tools/list`; a precomputed one is used as is after checking that it
   * names exactly the catalog's tools in the configured profile (otherwise `invalid_request`).
   */
  advertised?: AdvertisedCatalog;
}

/** What every connection of one server shares: the static catalog, settings and logging. */
export interface Runtime {
  options: ReaServerOptions;
  config: ReaConfig;
  registry: ProviderRegistry;
  contracts: readonly AnyToolContract[];
  byName: ReadonlyMap<string, AnyToolContract>;
  /** Server-wide log: stderr (or the given logger) and every connection's MCP logging. */
  logger: Logger;
  /** The same destination without MCP forwarding, for entries that belong to one connection. */
  localLogger: Logger;
  forwarders: Set<LogForwarder>;
  /** The advertised catalog, projected on first use (or the precomputed one). */
  advertised(): Promise<AdvertisedCatalog>;
  serverVersion(): string;
  sdkVersion(): string;
}

/** `base` plus every forwarder in `forwarders` (read at each entry, so connections can come and go). */
export function forwarding(base: Logger, forwarders: ReadonlySet<LogForwarder>): Logger {
  const entry =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, data?: JsonObject): void => {
      base[level](message, data);
      for (const forward of forwarders) forward(level, message, data);
    };
  return { debug: entry('debug'), info: entry('info'), warn: entry('warn'), error: entry('error') };
}

const runtimes = new WeakMap<ReaServerOptions, Runtime>();

function readVersion(packageJson: string): string {
  try {
    return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The shared runtime of `options` (built once per options object; settings read once). */
export function runtimeOf(options: ReaServerOptions): Runtime {
  const existing = runtimes.get(options);
  if (existing) return existing;
  const config = options.config ?? readConfig(options.env ?? process.env);
  const registry = createProviderRegistry(options.providers);
  const contracts = sortCatalog([...SERVER_TOOLS, ...(options.tools ?? []), ...registry.tools()]);
  const forwarders = new Set<LogForwarder>();
  const localLogger = options.logger ?? createStderrLogger({});
  const logger = forwarding(localLogger, forwarders);
  let advertised: Promise<AdvertisedCatalog> | null = null;
  if (options.advertised) {
    const names = options.advertised.tools.map((tool) => tool.name);
    const expected = contracts.map((contract) => contract.name);
    if (options.advertised.profile !== config.mcpInputSchemaProfile || names.join('\n') !== expected.join('\n')) {
      throw new ReaError(
        'invalid_request',
        "The precomputed advertised catalog does not match this server's catalog.",
        {
          details: {
            reason: 'stale-advertised-catalog',
            profile: options.advertised.profile,
            expected_profile: config.mcpInputSchemaProfile,
            missing: expected.filter((name) => !names.includes(name)),
            unexpected: names.filter((name) => !expected.includes(name)),
          },
          remediation: 'Regenerate the advertised catalog from the current tool contracts, or omit it.',
        },
      );
    }
    advertised = Promise.resolve(options.advertised);
  }
  let serverVersion: string | null = null;
  let sdkVersion: string | null = null;
  const runtime: Runtime = {
    options,
    config,
    registry,
    contracts,
    byName: new Map(contracts.map((contract) => [contract.name, contract])),
    logger,
    localLogger,
    forwarders,
    advertised: () => (advertised ??= advertiseCatalog(contracts, config.mcpInputSchemaProfile)),
    serverVersion: () =>
      (serverVersion ??= readVersion(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'))),
    sdkVersion: () => {
      if (sdkVersion === null) {
        try {
          const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server');
          sdkVersion = readVersion(join(dirname(entry), '..', 'package.json'));
        } catch {
          sdkVersion = 'unknown';
        }
      }
      return sdkVersion;
    },
  };
  runtimes.set(options, runtime);
  return runtime;
}

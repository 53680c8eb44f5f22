// The part of the server every connection needs from the start: settings, logging, and the advertised
// catalog. Everything a tool call needs (the composition, sessions, ledgers, the tool contracts, the
// Evidence machinery) is in ./calls.js, loaded on the first tool call: this module and its imports stay
// small, so that `initialize` and `tools/list` are answered without loading them.
import { createProviderRegistry, providerSettings, readConfig, sortCatalog } from '@rea/provider-kit';
import type {
  AnyToolContract,
  Logger,
  Provider,
  ProviderRegistry,
  ReaConfig,
  SettingsDeclaration,
  ToolFacts,
} from '@rea/provider-kit';
import type { AdvertisedCatalog } from '@rea/schema';
import { ReaError } from '@rea/evidence';
import type { ProviderIdentity } from '@rea/evidence';
import type { CallPath } from './calls.js';
import { STALE_MESSAGE, STALE_REMEDIATION, staleness } from './catalogCheck.js';
import { createStderrLogger, forwarding } from './logger.js';
import type { LogForwarder } from './logger.js';
import { SERVER_TOOL_NAMES } from './tools/names.js';

/** The providers and extra tools of a composition, as {@link ReaServerOptions.load} resolves them. */
export interface ServerComposition {
  /** Every provider, deep and tools-only; their tools join the catalog. */
  providers: readonly Provider[];
  /** Extra tool contracts beyond the server's own and the providers'. */
  tools?: readonly AnyToolContract[];
  /**
   * Tools known by their facts until the first call of one of them loads them: a tools-only provider's
   * or extra tools. `initialize`, `tools/list`, `binary_session` and the other tools load none of them.
   */
  deferred?: readonly DeferredTools[];
}

/**
 * Tools the server knows by their facts until the first call of one of them loads them: those of a
 * tools-only provider (created then; it joins no registry, as it is no analysis engine) or extra tools
 * of the composition. Once loaded, the provider's id and the tools' facts and availability check must be
 * exactly the declared ones; otherwise that call fails with `internal` (`details.reason:
 * "stale-tool-facts"`), logged, and the next call tries again.
 */
export interface DeferredTools {
  /** The id of the tools-only provider contributing them, or null for extra tools of the composition. */
  provider: string | null;
  /** The facts of every one of them (`toolFactsOf` of @rea/provider-kit). */
  tools: readonly ToolFacts[];
  /** The availability check every one of them declares; without it, each is always available. */
  availability?: AnyToolContract['availability'];
  /** Loads them: the provider, or (`provider: null`) the tools. Called once, again after a failure. */
  load(): Promise<Provider | readonly AnyToolContract[]>;
}

/**
 * Options of {@link createReaServer}: what the composition root hands the server. The composition is
 * given either eagerly (`providers`, optionally `tools`) or lazily (`load`), never both.
 */
export interface ReaServerOptions {
  /** Every provider, deep and tools-only; their tools join the catalog. Required unless `load` is given. */
  providers?: readonly Provider[];
  /** Extra tool contracts beyond the server's own and the providers'. */
  tools?: readonly AnyToolContract[];
  /**
   * The composition, loaded on first need instead of at start: called at most once, by the first
   * `tools/call` (or by `tools/list` when `advertised` is absent). With `advertised` as well, start-up,
   * `initialize` and `tools/list` load no provider and no tool contract beyond the server's own. When
   * it resolves, the advertised catalog must name exactly the loaded catalog's tools; otherwise, and
   * when it rejects, every `tools/call` fails with `internal` and the cause is logged.
   */
  load?: () => Promise<ServerComposition>;
  /** The package users installed (reported by binary_session), e.g. `{ name: "rea-mcp", version }`. */
  package: { name: string; version: string };
  /**
   * Settings (`readConfig` of @rea/provider-kit); read from `env` once when omitted, composed with the
   * settings every provider declares (`providers`, and `settings` for a lazy `load`).
   */
  config?: ReaConfig;
  /**
   * The settings declarations of the providers `load` will return, so that their variables are checked
   * at start (with eager `providers` their own declarations are composed). Ignored with `config`.
   */
  settings?: readonly SettingsDeclaration[];
  /** Where log entries go; defaults to JSON lines on stderr. MCP logging is added per connection. */
  logger?: Logger;
  /** Environment to read settings from; defaults to `process.env`. Read once. */
  env?: NodeJS.ProcessEnv;
  /** The server entry path reported and compared by binary_session; defaults to `process.argv[1]`. */
  serverPath?: string | null;
  /**
   * The advertised catalog, projected ahead of time with `advertiseCatalog` of @rea/schema from exactly
   * this catalog (server tools, `tools`, providers' tools) in the configured profile. Projection is the
   * costliest part of a cold `tools/list`; a precomputed one is served as is. With eager `providers` it
   * is checked at creation to name exactly the catalog's tools in the configured profile (otherwise
   * `invalid_request`); with `load`, its profile is checked at creation and its names once the
   * composition has loaded.
   */
  advertised?: AdvertisedCatalog;
}

/**
 * The static catalog of a server: the provider registry and every tool, sorted by name. Deferred
 * tools are known by their facts until {@link Catalog.resolve} loads them.
 */
export interface Catalog {
  registry: ProviderRegistry;
  /** Every tool name, sorted. */
  names: readonly string[];
  /** The contracts loaded so far, sorted: every tool but the deferred ones not loaded yet. */
  readonly contracts: readonly AnyToolContract[];
  /** True when the catalog has a tool of this name, loaded or not. */
  has(name: string): boolean;
  /** The loaded contract of this name, or undefined. */
  contract(name: string): AnyToolContract | undefined;
  /** The facts and availability check of a deferred tool not loaded yet, or undefined. */
  deferred(name: string): { facts: ToolFacts; availability: AnyToolContract['availability'] | null } | undefined;
  /** The identity of the (loaded) provider contributing this tool; null for the server's and extra tools. */
  providerOf(name: string): ProviderIdentity | null;
  /** The contract of this name, loading it first when deferred; undefined for an unknown name. */
  resolve(name: string): Promise<AnyToolContract | undefined>;
  /** Every contract, sorted, loading every deferred tool. */
  resolveAll(): Promise<readonly AnyToolContract[]>;
}

/** What every connection of one server shares: the static catalog, settings and logging. */
export interface Runtime {
  options: ReaServerOptions;
  config: ReaConfig;
  /** The call path (./calls.js), loaded on first need (once). */
  calls(): Promise<CallPath>;
  /** The catalog, loading the composition on first call (once); rejects with `internal` on failure. */
  catalog(): Promise<Catalog>;
  /** The catalog once loaded; `internal` before (only tool calls reach it, after {@link catalog}). */
  loaded(): Catalog;
  /** The number of advertised tools when known without loading anything, else null. */
  knownToolCount(): number | null;
  /** Server-wide log: stderr (or the given logger) and every connection's MCP logging. */
  logger: Logger;
  /** The same destination without MCP forwarding, for entries that belong to one connection. */
  localLogger: Logger;
  forwarders: Set<LogForwarder>;
  /** The advertised catalog, projected on first use (or the precomputed one). */
  advertised(): Promise<AdvertisedCatalog>;
}

const runtimes = new WeakMap<ReaServerOptions, Runtime>();

/** The sorted tool names of a composition, checked for duplicates without loading the server's tools. */
function catalogNames(registry: ProviderRegistry, extra: readonly AnyToolContract[]): string[] {
  const names = sortCatalog([...extra, ...registry.tools()]).map((contract) => contract.name);
  const clash = names.find((name) => SERVER_TOOL_NAMES.includes(name));
  if (clash !== undefined) {
    throw new ReaError('invalid_request', `Two tools are named ${clash}.`, {
      details: { reason: 'duplicate-tool', tool: clash },
    });
  }
  return [...SERVER_TOOL_NAMES, ...names].sort();
}

/**
 * Memoizes an asynchronous load (or starts from `initial`). A load that fails is forgotten, so the next
 * caller tries again instead of every later call failing with the first error.
 */
export function retrying<T>(load: () => Promise<T>, initial: Promise<T> | null = null): () => Promise<T> {
  let pending = initial;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = null;
      throw error;
    }));
}

/** The shared runtime of `options` (built once per options object; settings read once). */
export function runtimeOf(options: ReaServerOptions): Runtime {
  const existing = runtimes.get(options);
  if (existing) return existing;
  const config =
    options.config ??
    readConfig(options.env ?? process.env, [
      ...providerSettings(options.providers ?? []),
      ...(options.settings ?? []).filter((declaration) => !options.providers?.some((p) => p.settings === declaration)),
    ]);
  const profile = config.mcpInputSchemaProfile;
  const { load, providers } = options;
  if ((load === undefined) === (providers === undefined)) {
    throw new ReaError('invalid_request', 'Give the server its composition either as providers or as load, not both.', {
      details: { reason: 'composition', providers: providers !== undefined, load: load !== undefined },
      remediation: 'Pass `providers` (and optionally `tools`), or pass `load`.',
    });
  }
  if (load && options.tools) {
    throw new ReaError('invalid_request', 'With load, the extra tools come from what load resolves.', {
      details: { reason: 'composition', providers: false, load: true },
      remediation: 'Return the tools from load instead of passing them.',
    });
  }
  const forwarders = new Set<LogForwarder>();
  const localLogger = options.logger ?? createStderrLogger({});
  const logger = forwarding(localLogger, forwarders);
  const precomputed = options.advertised;
  let eagerToolCount: number | null = null;
  if (providers) {
    // Checked now (duplicate names, a stale precomputed catalog); the call path builds its own registry.
    const registry = createProviderRegistry(providers);
    const names = catalogNames(registry, options.tools ?? []);
    eagerToolCount = names.length;
    const stale = precomputed ? staleness(precomputed, names, profile) : null;
    if (stale) throw new ReaError('invalid_request', STALE_MESSAGE, { details: stale, remediation: STALE_REMEDIATION });
  } else if (precomputed && precomputed.profile !== profile) {
    throw new ReaError('invalid_request', STALE_MESSAGE, {
      details: { reason: 'stale-advertised-catalog', profile: precomputed.profile, expected_profile: profile },
      remediation: STALE_REMEDIATION,
    });
  }
  let current: Catalog | null = null;
  const runtime: Runtime = {
    options,
    config,
    calls: retrying(() => import('./calls.js').then((module) => module.callPath)),
    catalog: retrying(() =>
      runtime
        .calls()
        .then((path) => path.loadCatalog(runtime))
        .then((catalog) => (current = catalog)),
    ),
    loaded: () => {
      if (current) return current;
      throw new ReaError('internal', 'The tool catalog was used before it loaded.', {
        details: { reason: 'catalog-not-loaded' },
      });
    },
    knownToolCount: () => current?.names.length ?? precomputed?.tools.length ?? eagerToolCount,
    logger,
    localLogger,
    forwarders,
    advertised: retrying(
      () => runtime.catalog().then(async (catalog) => (await runtime.calls()).advertise(catalog, profile)),
      precomputed ? Promise.resolve(precomputed) : null,
    ),
  };
  runtimes.set(options, runtime);
  return runtime;
}

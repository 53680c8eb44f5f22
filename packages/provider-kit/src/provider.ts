import { AnalysisProfileSchema, ReaError, createAnalysisProfile } from '@rea/evidence';
import type { AnalysisProfile, JsonObject, ProviderIdentity } from '@rea/evidence';
import type { ActiveTarget, ProgressSink, ProviderBinding } from './context.js';
import type { AnyToolContract } from './tool.js';
import type { ProcessSupervisor } from './supervisor/supervisor.js';
import type { ReaConfig } from './config.js';
import type { SettingsDeclaration } from './settings.js';
import { PROVIDER_ID_PATTERN } from './providerId.js';
import { PORT_PATTERN } from './ports.js';
import type { PortSession } from './ports.js';

/** The result of a probe: ready (with the engine version when known), or unavailable with a remediation. */
export type ProbeResult =
  | { status: 'ready'; version?: string; details?: JsonObject }
  | { status: 'unavailable'; reason: string; remediation: string };

/** What a provider is told about a target when asked whether it supports it. */
export interface TargetDescriptor {
  format: string;
  architecture?: string;
}

/** Whether a provider supports a target; `unknown` when it cannot tell without opening it. */
export type TargetSupport = 'supported' | 'unsupported' | 'unknown';

/** Everything `open` receives. The signal, supervisor and run id belong to this one target transition. */
export interface OpenOptions {
  signal: AbortSignal;
  /** Start every engine process, temp directory and socket through it. */
  supervisor: ProcessSupervisor;
  /** Allocated by the host before any provider starts. */
  runId: string;
  progress: ProgressSink;
  config: ReaConfig;
}

/** An open deep-analysis session on one target; `S` is the session type of the provider's port. */
export interface DeepSession<S = unknown> {
  /** The provider identity with the concrete engine version that is analysing the target. */
  provider: ProviderIdentity;
  /** The complete analysis profile (from `createAnalysisProfile`). */
  analysis_profile: NonNullable<AnalysisProfile>;
  /** The provider's engine session, of its port's type; tools receive it as `ProviderBinding.session`. */
  session: S;
  /** Stops the engine and releases what it owns; throws `cleanup_incomplete` when something remains. */
  close(signal: AbortSignal): Promise<void>;
}

interface ProviderBase {
  /** Stable id (see {@link PROVIDER_ID_PATTERN}); never "auto". */
  readonly id: string;
  readonly name: string;
  /** The provider package version (the engine version is reported by `probe` and `DeepSession`). */
  readonly version: string;
  /** Every capability the provider has, declared up front; anything else refuses with `capability_unavailable`. */
  readonly capabilities: readonly string[];
  /** Checks whether the engine can run on this host. Cheap; never starts an engine; never throws. */
  probe(options?: { signal?: AbortSignal }): Promise<ProbeResult>;
  /** The tool contracts this provider contributes. */
  tools(): readonly AnyToolContract[];
  /** Whether the provider supports a target; absent means `unknown`. */
  supportsTarget?(target: TargetDescriptor): TargetSupport;
  /**
   * The environment variables it reads (`defineSettings`). The host composes them with its own, so an
   * invalid value fails startup (`configuration_invalid`) and `rea doctor` lists them; the provider
   * reads the values with `settingsOf(declaration, config)`.
   */
  readonly settings?: SettingsDeclaration;
}

/** A provider that only contributes tools. */
export interface ToolsProvider extends ProviderBase {
  readonly kind: 'tools';
}

/**
 * A deep-analysis provider: it implements one port (`native` for the static analysis `open_binary`
 * binds) and opens sessions of that port's type. Selection only ever compares providers of one port.
 */
export interface DeepProvider<P extends string = string> extends ProviderBase {
  readonly kind: 'deep';
  /** The port it implements (see `DeepPorts`), e.g. `native`. */
  readonly port: P;
  /** True for the zero-install engine that `auto` falls back to when no external engine is ready. */
  readonly embedded?: boolean;
  /** Opens the target. Honours `options.signal` (`cancelled`) and its startup deadline (`provider_timeout`). */
  open(target: ActiveTarget, options: OpenOptions): Promise<DeepSession<PortSession<P>>>;
}

/** A provider: a plain object, made by `create<Engine>Provider(options)`. */
export type Provider = DeepProvider | ToolsProvider;

/** Narrows a provider to a deep-analysis provider. */
export function isDeepProvider(provider: Provider): provider is DeepProvider {
  return provider.kind === 'deep';
}

/**
 * Throws `capability_unavailable` (details: `capability`, `provider_id`, `alternatives`) unless
 * `provider` declares `capability`. Call it at the top of every capability-specific operation.
 */
export function requireCapability(
  provider: Pick<ProviderBase, 'id' | 'name' | 'capabilities'>,
  capability: string,
  options: { alternatives?: readonly string[] } = {},
): void {
  if (provider.capabilities.includes(capability)) return;
  const alternatives = [...(options.alternatives ?? [])].sort();
  throw new ReaError('capability_unavailable', `${provider.name} (${provider.id}) does not provide "${capability}".`, {
    remediation:
      alternatives.length > 0
        ? `Use a provider that declares "${capability}": ${alternatives.join(', ')}.`
        : `Open the target with a provider that declares "${capability}".`,
    details: { capability, provider_id: provider.id, alternatives },
  });
}

/**
 * Checks a provider's shape: id syntax (and not "auto"), non-empty name and version, a kind, unique
 * capabilities, and `open` and a port name on deep providers. Throws `invalid_request` (`details.reason:
 * "invalid-provider"`, `provider_id`, `problem`).
 */
export function validateProvider(provider: Provider): void {
  const id = String((provider as { id?: unknown }).id);
  const refuse = (problem: string): never => {
    throw new ReaError('invalid_request', `Provider ${id} is invalid: ${problem}.`, {
      details: { reason: 'invalid-provider', provider_id: id, problem },
    });
  };
  if (!PROVIDER_ID_PATTERN.test(id) || id === 'auto') refuse('the id must be lowercase kebab-case and not "auto"');
  if (typeof provider.name !== 'string' || !provider.name.trim()) refuse('the name is empty');
  if (typeof provider.version !== 'string' || !provider.version.trim()) refuse('the version is empty');
  if (provider.kind !== 'deep' && provider.kind !== 'tools') refuse('kind must be "deep" or "tools"');
  if (new Set(provider.capabilities).size !== provider.capabilities.length) refuse('capabilities repeat');
  if (provider.kind === 'deep' && typeof provider.open !== 'function') refuse('a deep provider needs open()');
  const port = (provider as { port?: unknown }).port;
  if (provider.kind === 'deep' && (typeof port !== 'string' || !PORT_PATTERN.test(port))) {
    refuse('a deep provider needs the port it implements (e.g. "native")');
  }
}

/**
 * Checks what `open` returned (identity matches the provider, concrete version, a profile whose digest
 * verifies) and builds the immutable binding the session exposes. Throws `internal` on a violation.
 * With the host's `registry`, the binding lists the providers of the same port (`peers`) for remedies.
 */
export function createProviderBinding(
  provider: DeepProvider,
  session: DeepSession,
  selectionSource: ProviderBinding['selection_source'],
  registry?: { readonly deep: readonly DeepProvider[] },
): ProviderBinding {
  const problem =
    session.provider.id !== provider.id
      ? `reports id ${session.provider.id}`
      : !session.provider.version.trim()
        ? 'reports no concrete version'
        : !AnalysisProfileSchema.safeParse(session.analysis_profile).success || session.analysis_profile === null
          ? 'returned no complete analysis profile'
          : createAnalysisProfile(session.analysis_profile).digest !== session.analysis_profile.digest
            ? 'returned an analysis profile whose digest does not verify'
            : null;
  if (problem) {
    throw new ReaError('internal', `Provider ${provider.id} opened a session that ${problem}.`, {
      details: { provider_id: provider.id, problem },
    });
  }
  const peers = registry?.deep
    .filter((candidate) => candidate.port === provider.port)
    .map((candidate) =>
      Object.freeze({
        id: candidate.id,
        name: candidate.name,
        capabilities: Object.freeze([...candidate.capabilities]),
      }),
    );
  return Object.freeze({
    provider: Object.freeze({ ...session.provider }),
    port: provider.port,
    selection_source: selectionSource,
    analysis_profile: session.analysis_profile,
    session: session.session,
    ...(peers ? { peers: Object.freeze(peers) } : {}),
  });
}

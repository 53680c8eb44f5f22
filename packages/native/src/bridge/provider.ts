import { ReaError } from '@rea/evidence';
import { NATIVE_PORT, packageFile } from '@rea/provider-kit';
import type {
  ActiveTarget,
  DeepProvider,
  DeepSession,
  OpenOptions,
  ProbeResult,
  TargetDescriptor,
  TargetSupport,
} from '@rea/provider-kit';
import type { JsonObject } from '@rea/evidence';
import type { NativeCapability, NativePort } from '../port.js';
import type { BridgeSessionOptions } from './session.js';

/** What discovering an external engine found: an installation, or why there is none and what to do. */
export type EngineDiscovery<I> =
  { status: 'ready'; installation: I } | { status: 'unavailable'; reason: string; remediation: string };

/** What distinguishes one external engine's provider; {@link createBridgeProvider} supplies the rest. */
export interface BridgeProviderSpec<I extends { version: string }> {
  id: string;
  /** The engine's display name, also used in messages ("Ghidra is unavailable: …"). */
  name: string;
  /** The provider package's version. */
  version: string;
  capabilities: readonly NativeCapability[];
  /** Target formats the engine supports; `unknown` and `raw` are answered `unknown`. */
  formats: readonly string[];
  /** Reads files only: never starts the engine. `config` is the open's configuration when opening. */
  discover(config?: OpenOptions['config']): EngineDiscovery<I>;
  /** What `probe` reports of a ready installation, besides its version. */
  probeDetails(installation: I): JsonObject;
  /** The engine-specific part of the bridge session: profile, startup deadline and its setting, launch. */
  session(
    installation: I,
    target: ActiveTarget,
    open: OpenOptions,
  ): Pick<BridgeSessionOptions, 'analysisProfile' | 'startupMs' | 'setting' | 'launch'>;
  /** Spacing of waiting notices during startup in ms (default 10000). */
  waitingNoticeMs?: number;
}

/**
 * A deep provider of the native port backed by an external engine over the bridge: `probe` and `open`
 * only discover (nothing starts until the first query), an unavailable engine is
 * `provider_unavailable` with its remedy, and the session is `openBridgeSession`'s (loaded with the first open).
 */
export function createBridgeProvider<I extends { version: string }>(
  spec: BridgeProviderSpec<I>,
): DeepProvider<typeof NATIVE_PORT> {
  return {
    kind: 'deep',
    port: NATIVE_PORT,
    id: spec.id,
    name: spec.name,
    version: spec.version,
    capabilities: [...spec.capabilities],
    async probe(): Promise<ProbeResult> {
      const found = spec.discover();
      if (found.status === 'unavailable') return found;
      return {
        status: 'ready',
        version: found.installation.version,
        details: spec.probeDetails(found.installation),
      };
    },
    tools: () => [],
    supportsTarget(target: TargetDescriptor): TargetSupport {
      if (spec.formats.includes(target.format)) return 'supported';
      return target.format === 'unknown' || target.format === 'raw' ? 'unknown' : 'unsupported';
    },
    async open(target: ActiveTarget, open: OpenOptions): Promise<DeepSession<NativePort>> {
      const found = spec.discover(open.config);
      if (found.status === 'unavailable') {
        throw new ReaError('provider_unavailable', `${spec.name} is unavailable: ${found.reason}.`, {
          remediation: found.remediation,
          details: { provider_id: spec.id, reason: found.reason },
        });
      }
      const { installation } = found;
      // The session (the protocol's schemas, the channel, the engine process) loads with the first open: a
      // probe, or a command whose target another engine opens, builds none of it.
      const { openBridgeSession } = await import('./session.js');
      return openBridgeSession(target, open, {
        providerId: spec.id,
        engine: spec.name,
        version: installation.version,
        capabilities: spec.capabilities,
        ...spec.session(installation, target, open),
        ...(spec.waitingNoticeMs === undefined ? {} : { waitingNoticeMs: spec.waitingNoticeMs }),
      });
    },
  };
}

/**
 * The file or folder at `relative` that the provider package `packageName` ships for its engine's side of
 * the bridge (a script the engine runs), found by the package's name from the module at `from` (its
 * `import.meta.url`) when asked for, not when the module loads, so that it is found bundled or not. A
 * package without it cannot start its engine: `provider_unavailable` (`details.reason:
 * "bridge-script-missing"`) saying to reinstall.
 */
export function shippedBridgeFile(from: string, packageName: string, relative: string, providerId: string): string {
  const path = packageFile(from, packageName, relative);
  if (path !== null) return path;
  throw new ReaError('provider_unavailable', `The bridge ${relative} of ${packageName} is missing.`, {
    remediation: `Reinstall REA (npm install rea-mcp) so that ${packageName} is complete.`,
    details: { provider_id: providerId, reason: 'bridge-script-missing', path: relative },
  });
}

import { throwIfAborted } from '@rea/evidence';
import type { AnalysisProfile } from '@rea/evidence';
import type { ActiveTarget, DeepSession, OpenOptions } from '@rea/provider-kit';
import type { NativeCapability, NativePort } from '../port.js';
import { createExternalEngine } from './external.js';
import type { EngineLaunch } from './external.js';
import { BridgePort } from './port.js';

/** Options for {@link openBridgeSession}. */
export interface BridgeSessionOptions {
  providerId: string;
  /** The engine's display name (`Ghidra`). */
  engine: string;
  /** The engine's concrete version, as discovery found it. */
  version: string;
  analysisProfile: NonNullable<AnalysisProfile>;
  capabilities: readonly NativeCapability[];
  startupMs: number;
  /** The setting that controls `startupMs`, named in `provider_timeout`. */
  setting: string;
  launch(project: string): EngineLaunch;
  waitingNoticeMs?: number;
}

/**
 * The deep session an external-engine provider returns from `open`: the binding's identity and
 * profile, a {@link BridgePort} whose first query starts the engine, and `close`. Starts nothing;
 * `cancelled` when the open's signal has already aborted.
 */
export function openBridgeSession(
  target: ActiveTarget,
  open: OpenOptions,
  options: BridgeSessionOptions,
): DeepSession<NativePort> {
  throwIfAborted(open.signal, 'open');
  const engine = createExternalEngine({
    providerId: options.providerId,
    engine: options.engine,
    target,
    supervisor: open.supervisor,
    startupMs: options.startupMs,
    setting: options.setting,
    launch: options.launch,
    ...(options.waitingNoticeMs === undefined ? {} : { waitingNoticeMs: options.waitingNoticeMs }),
  });
  return {
    provider: { id: options.providerId, name: options.engine, version: options.version },
    analysis_profile: options.analysisProfile,
    session: new BridgePort(engine, target.path, options.capabilities),
    close: () => engine.close(),
  };
}

import { createAnalysisProfile } from '@rea/evidence';
import { BRIDGE_PROTOCOL, NATIVE_CAPABILITIES, createBridgeProvider, shippedBridgeFile } from '@rea/native/core';
import type { NativeCapability } from '@rea/native';
import { packageVersion } from '@rea/provider-kit';
import type { DeepProvider, NATIVE_PORT } from '@rea/provider-kit';
import { HOPPER_UNKNOWN_VERSION, HOPPER_UNKNOWN_VERSION_NOTE, discoverHopper } from './discovery.js';
import type { HopperInstallation } from './discovery.js';

/** This package's version as its installed manifest states it (a bundle states it at build time). */
export const HOPPER_PROVIDER_VERSION: string = packageVersion(import.meta.url, '@rea/provider-hopper');

/** The provider id. */
export const HOPPER_PROVIDER_ID = 'hopper';

/**
 * The Python bridge script the package ships, run by Hopper with `-Y`: found by the package's name when
 * asked for (not when the module loads). A package without it cannot start Hopper: `provider_unavailable`.
 */
export function hopperBridgeScript(): string {
  return shippedBridgeFile(import.meta.url, '@rea/provider-hopper', 'scripts/rea_bridge.py', HOPPER_PROVIDER_ID);
}

/** Default startup deadline (load, analysis, bridge), in ms: `REA_HOPPER_STARTUP_TIMEOUT_MS`. */
export const HOPPER_STARTUP_TIMEOUT_MS = 120_000;

/** What the bridge serves: the native port without bookmarks. */
export const HOPPER_CAPABILITIES: readonly NativeCapability[] = NATIVE_CAPABILITIES.filter(
  (c) => c !== 'high_pcode' && c !== 'bookmarks',
);

const NATIVE_FORMATS = ['elf', 'pe', 'macho', 'mach-o', 'macho-fat', 'mach-o-universal'];

/** Options for {@link createHopperProvider}. */
export interface HopperProviderOptions {
  /** Where discovery reads HOPPER_LAUNCHER_PATH (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Spacing of waiting notices during startup in ms (default 10000). */
  waitingNoticeMs?: number;
}

/** The analysis profile of a Hopper session. */
export function hopperProfile(installation: HopperInstallation) {
  return createAnalysisProfile({
    name: 'hopper-scripted',
    version: installation.version,
    settings: {
      load: 'hopper -e <target> with the default loader',
      analysis: 'default background analysis, awaited before the bridge answers',
      decompiler: 'Procedure.decompile',
      bridge: BRIDGE_PROTOCOL,
    },
  });
}

/**
 * Hopper Disassembler as a deep provider of the native port. `probe` and `open` read files only; the
 * first query runs the launcher as an owned process (`-e <target> -Y rea_bridge.py`), whose Python
 * bridge waits for the analysis and serves the port over the authenticated bridge socket.
 */
export function createHopperProvider(options: HopperProviderOptions = {}): DeepProvider<typeof NATIVE_PORT> {
  return createBridgeProvider<HopperInstallation>({
    id: HOPPER_PROVIDER_ID,
    name: 'Hopper',
    version: HOPPER_PROVIDER_VERSION,
    capabilities: HOPPER_CAPABILITIES,
    formats: NATIVE_FORMATS,
    discover: (config) =>
      discoverHopper(config?.hopperLauncherPath ?? (options.env ?? process.env)['HOPPER_LAUNCHER_PATH'] ?? null),
    probeDetails: (installation) => ({
      launcher: installation.launcher,
      ...(installation.version === HOPPER_UNKNOWN_VERSION ? { limitation: HOPPER_UNKNOWN_VERSION_NOTE } : {}),
    }),
    session: (installation, target, open) => ({
      analysisProfile: hopperProfile(installation),
      startupMs: open.config?.hopperStartupTimeoutMs ?? HOPPER_STARTUP_TIMEOUT_MS,
      setting: 'REA_HOPPER_STARTUP_TIMEOUT_MS',
      // Hopper keeps its own documents; the owned project directory is its working directory.
      launch: () => ({ command: installation.launcher, args: ['-e', target.path, '-Y', hopperBridgeScript()] }),
    }),
    ...(options.waitingNoticeMs === undefined ? {} : { waitingNoticeMs: options.waitingNoticeMs }),
  });
}

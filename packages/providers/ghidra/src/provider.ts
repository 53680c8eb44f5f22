import { createAnalysisProfile } from '@rea/evidence';
import { BRIDGE_PROTOCOL, NATIVE_CAPABILITIES, createBridgeProvider, shippedBridgeFile } from '@rea/native/core';
import type { NativeCapability } from '@rea/native';
import { packageVersion } from '@rea/provider-kit';
import type { DeepProvider, NATIVE_PORT } from '@rea/provider-kit';
import { discoverGhidra } from './discovery.js';
import type { GhidraInstallation } from './discovery.js';

/** This package's version as its installed manifest states it (a bundle states it at build time). */
export const GHIDRA_PROVIDER_VERSION: string = packageVersion(import.meta.url, '@rea/provider-ghidra');

/** The provider id. */
export const GHIDRA_PROVIDER_ID = 'ghidra';

/**
 * The directory of the bridge script the package ships (`ReaBridge.java`), passed as `-scriptPath`: found
 * by the package's name when asked for (not when the module loads). A package without it cannot start
 * Ghidra: `provider_unavailable`.
 */
export function ghidraScriptsDirectory(): string {
  return shippedBridgeFile(import.meta.url, '@rea/provider-ghidra', 'scripts', GHIDRA_PROVIDER_ID);
}

/** The bridge script's file name. */
export const GHIDRA_BRIDGE_SCRIPT = 'ReaBridge.java';

/** Default startup deadline (import, auto-analysis, bridge), in ms: `REA_GHIDRA_STARTUP_TIMEOUT_MS`. */
export const GHIDRA_STARTUP_TIMEOUT_MS = 330_000;

/** Everything the bridge serves: the whole native port. */
export const GHIDRA_CAPABILITIES: readonly NativeCapability[] = [...NATIVE_CAPABILITIES];

const NATIVE_FORMATS = ['elf', 'pe', 'macho', 'mach-o', 'macho-fat', 'mach-o-universal', 'coff'];

/** Options for {@link createGhidraProvider}. */
export interface GhidraProviderOptions {
  /** Where discovery reads GHIDRA_INSTALL_DIR, JAVA_HOME and PATH (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Spacing of waiting notices during startup in ms (default 10000). */
  waitingNoticeMs?: number;
}

/** The analysis profile of a Ghidra session: the engine version and how the target was analysed. */
export function ghidraProfile(installation: GhidraInstallation) {
  return createAnalysisProfile({
    name: 'ghidra-headless',
    version: installation.version,
    settings: {
      import: 'analyzeHeadless -import into a fresh temporary project',
      analysis: 'default auto-analysis',
      decompiler: 'DecompInterface with default options',
      bridge: BRIDGE_PROTOCOL,
      jdk: installation.javaVersion,
    },
  });
}

/**
 * Ghidra as a deep provider of the native port. `probe` and `open` read files only; the first query
 * runs `support/analyzeHeadless` as an owned process that imports the target into a fresh owned
 * project with default auto-analysis, then runs the package's bridge script, which serves the port
 * over the authenticated bridge socket until the session closes.
 */
export function createGhidraProvider(options: GhidraProviderOptions = {}): DeepProvider<typeof NATIVE_PORT> {
  return createBridgeProvider<GhidraInstallation>({
    id: GHIDRA_PROVIDER_ID,
    name: 'Ghidra',
    version: GHIDRA_PROVIDER_VERSION,
    capabilities: GHIDRA_CAPABILITIES,
    formats: NATIVE_FORMATS,
    discover: (config) => {
      const env = options.env ?? process.env;
      return discoverGhidra({
        GHIDRA_INSTALL_DIR: config?.ghidraInstallDir ?? env['GHIDRA_INSTALL_DIR'] ?? null,
        JAVA_HOME: config?.javaHome ?? env['JAVA_HOME'] ?? null,
        ...(env['PATH'] === undefined ? {} : { PATH: env['PATH'] }),
      });
    },
    probeDetails: (installation) => ({
      install_dir: installation.installDir,
      java_home: installation.javaHome,
      jdk: installation.javaVersion,
    }),
    session: (installation, target, open) => ({
      analysisProfile: ghidraProfile(installation),
      startupMs: open.config?.ghidraStartupTimeoutMs ?? GHIDRA_STARTUP_TIMEOUT_MS,
      setting: 'REA_GHIDRA_STARTUP_TIMEOUT_MS',
      launch: (project: string) => ({
        command: installation.headless,
        args: [
          project,
          'rea',
          '-import',
          target.path,
          '-scriptPath',
          ghidraScriptsDirectory(),
          '-postScript',
          GHIDRA_BRIDGE_SCRIPT,
        ],
        env: { JAVA_HOME: installation.javaHome },
      }),
    }),
    ...(options.waitingNoticeMs === undefined ? {} : { waitingNoticeMs: options.waitingNoticeMs }),
  });
}

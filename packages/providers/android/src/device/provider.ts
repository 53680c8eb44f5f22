import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isReaError } from '@rea/evidence';
import type { ToolsProvider } from '@rea/provider-kit';
import { locateAdb } from './locate.js';
import { ANDROID_DEVICE_SETTINGS } from './settings.js';
import { installPackageTool, pushFileTool, startAppTool, stopAppTool, uninstallPackageTool } from './tools/change.js';
import type { EnvironmentSource } from './tools/common.js';
import { captureScreenTool, listDirectoryTool, pullFileTool, readLogcatTool } from './tools/files.js';
import { inspectDeviceTool, listDevicesTool } from './tools/inspect.js';
import { inspectPackageTool, listPackagesTool } from './tools/packages.js';

/** Options of {@link createAndroidDeviceProvider}. */
export interface AndroidDeviceProviderOptions {
  /** The environment adb is found and configured from (default: this process's, read at each call). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** This package's version as its installed manifest states it (bundled or installed alike). */
function packageVersion(): string {
  const manifest = createRequire(import.meta.url).resolve('@rea/provider-android/package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** The provider's capabilities: reading a device (and copying from it), and changing it. */
export const ANDROID_DEVICE_CAPABILITIES = ['android-device-read', 'android-device-change'] as const;

/**
 * The Android device provider: a tools provider that runs the user's own adb client (found on PATH or
 * in ANDROID_HOME / ANDROID_SDK_ROOT platform-tools) against a running adb server, one process per
 * command through the call's supervisor. It never installs platform tools, starts an adb server or
 * starts an emulator. Read-only tools list and inspect devices, packages, files, processes and the
 * log, and copy files or screenshots out; the tools that push, install, uninstall, start or stop are
 * `mutatesDevice`, hence destructive. With several devices attached, every call must name its serial.
 */
export function createAndroidDeviceProvider(options: AndroidDeviceProviderOptions = {}): ToolsProvider {
  const env: EnvironmentSource = () => options.env ?? process.env;
  const tools = [
    listDevicesTool(env),
    inspectDeviceTool(env),
    listPackagesTool(env),
    inspectPackageTool(env),
    listDirectoryTool(env),
    pullFileTool(env),
    readLogcatTool(env),
    captureScreenTool(env),
    pushFileTool(env),
    installPackageTool(env),
    uninstallPackageTool(env),
    startAppTool(env),
    stopAppTool(env),
  ];
  return {
    id: 'android-device',
    name: 'Android devices (adb)',
    version: packageVersion(),
    kind: 'tools',
    capabilities: ANDROID_DEVICE_CAPABILITIES,
    settings: ANDROID_DEVICE_SETTINGS,
    probe: async () => {
      try {
        const adb = locateAdb(env());
        return { status: 'ready', details: { adb: adb.path, source: adb.source, server: adb.serverSocket } };
      } catch (error) {
        if (!isReaError(error)) throw error;
        return { status: 'unavailable', reason: error.message, remediation: error.remediation ?? '' };
      }
    },
    tools: () => tools,
  };
}

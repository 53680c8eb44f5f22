import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ReaError } from '@rea/evidence';
import { readSettings } from '@rea/provider-kit';
import { ANDROID_DEVICE_SETTINGS } from './settings.js';

/** The adb client REA runs and the server it talks to. */
export interface AdbLocation {
  /** The adb executable. */
  path: string;
  /** Where it came from: REA_ADB_PATH, PATH, ANDROID_HOME or ANDROID_SDK_ROOT. */
  source: string;
  /** The `ADB_SERVER_SOCKET` REA gives the client: always a TCP address the client will not start a server on. */
  serverSocket: string;
  /** Deadline of one adb command, in ms. */
  timeoutMs: number;
}

const EXECUTABLE = process.platform === 'win32' ? 'adb.exe' : 'adb';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The adb candidates in search order, each with the variable it came from. */
function candidates(env: Readonly<Record<string, string | undefined>>): [string, string][] {
  const settings = readSettings([ANDROID_DEVICE_SETTINGS], env) as {
    adbPath: string | null;
    androidHome: string | null;
    androidSdkRoot: string | null;
  };
  if (settings.adbPath !== null) return [[settings.adbPath, 'REA_ADB_PATH']];
  const onPath = (env['PATH'] ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir): [string, string] => [join(dir, EXECUTABLE), 'PATH']);
  const sdk = (
    [
      [settings.androidHome, 'ANDROID_HOME'],
      [settings.androidSdkRoot, 'ANDROID_SDK_ROOT'],
    ] as const
  ).flatMap(([root, source]): [string, string][] =>
    root === null ? [] : [[join(root, 'platform-tools', EXECUTABLE), source]],
  );
  return [...onPath, ...sdk];
}

/**
 * The server address for the client. adb starts a server of its own when it finds none at a local
 * address (`tcp:<port>`, `tcp:localhost:<port>`), and that daemon would outlive the call; at
 * `tcp:127.0.0.1:<port>` the client only connects. So the default port, `ANDROID_ADB_SERVER_PORT` and
 * those forms of `ADB_SERVER_SOCKET` are rewritten to 127.0.0.1; a remote TCP address is kept.
 */
export function serverSocketOf(env: Readonly<Record<string, string | undefined>>): string {
  const spec = env['ADB_SERVER_SOCKET'];
  if (spec !== undefined && spec !== '') {
    const local = /^tcp:(?:localhost:)?(\d{1,5})$/.exec(spec);
    if (local) return `tcp:127.0.0.1:${local[1]}`;
    if (/^tcp:[^:]+:\d{1,5}$/.test(spec) || /^tcp:\[[0-9a-fA-F:.]+\]:\d{1,5}$/.test(spec)) return spec;
    throw new ReaError(
      'capability_unavailable',
      `ADB_SERVER_SOCKET="${spec.slice(0, 200)}" is not a TCP address REA can use.`,
      {
        remediation:
          'Set ADB_SERVER_SOCKET to tcp:<host>:<port> of a running adb server, or unset it for tcp:127.0.0.1:5037.',
        details: { capability: 'adb-server', reason: 'unsupported-server-socket' },
      },
    );
  }
  const port = env['ANDROID_ADB_SERVER_PORT'];
  if (port !== undefined && /^\d{1,5}$/.test(port)) return `tcp:127.0.0.1:${port}`;
  return 'tcp:127.0.0.1:5037';
}

/**
 * Finds the adb client: REA_ADB_PATH when set, else the first executable `adb` on PATH, else
 * `platform-tools/adb` under ANDROID_HOME, then ANDROID_SDK_ROOT. REA never installs platform tools:
 * none found is `capability_unavailable` with the places searched.
 */
export function locateAdb(env: Readonly<Record<string, string | undefined>>): AdbLocation {
  const searched = candidates(env);
  const found = searched.find(([path]) => executable(path));
  if (!found) {
    const explicit = searched[0]?.[1] === 'REA_ADB_PATH';
    throw new ReaError(
      'capability_unavailable',
      explicit
        ? `REA_ADB_PATH names no executable adb (${searched[0]![0]}).`
        : 'No adb client was found on PATH or in ANDROID_HOME/ANDROID_SDK_ROOT platform-tools.',
      {
        remediation:
          'Install the Android SDK Platform-Tools yourself (REA does not install them), then put adb on PATH, set ANDROID_HOME (or ANDROID_SDK_ROOT) to the SDK, or set REA_ADB_PATH to the adb executable.',
        details: {
          capability: 'adb',
          reason: 'adb-not-found',
          searched: searched.map(([path, source]) => ({ path, source })),
        },
      },
    );
  }
  const settings = readSettings([ANDROID_DEVICE_SETTINGS], env) as { adbTimeoutMs: number };
  return { path: found[0], source: found[1], serverSocket: serverSocketOf(env), timeoutMs: settings.adbTimeoutMs };
}

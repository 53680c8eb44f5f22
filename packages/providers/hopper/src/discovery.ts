import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A Hopper installation REA can run. */
export interface HopperInstallation {
  /** The command-line launcher (`…/Contents/MacOS/hopper` in a macOS bundle, `…/bin/Hopper` on Linux). */
  launcher: string;
  /**
   * `CFBundleShortVersionString` of the application bundle, e.g. `5.19.3`; `unknown` for a Linux
   * install, which states no version in a file (see {@link HOPPER_UNKNOWN_VERSION_NOTE}).
   */
  version: string;
}

/** The version reported for a Linux install, whose tree states none REA can read. */
export const HOPPER_UNKNOWN_VERSION = 'unknown';

/** Why a Linux install's version is unknown, and where the actual version shows. */
export const HOPPER_UNKNOWN_VERSION_NOTE =
  'A Linux Hopper install (bin/Hopper) states no version in a file, and REA does not run the launcher to ask; the version is reported as unknown and not checked against the supported majors (4 and 5). The engine states its own version when it starts.';

/** Whether `launcher` is a Linux install's `<dir>/bin/Hopper`. */
function linuxLauncher(launcher: string): boolean {
  return basename(launcher) === 'Hopper' && basename(dirname(launcher)) === 'bin';
}

/** What discovery found: an installation, or why there is none usable and what to do. */
export type HopperDiscovery =
  | { status: 'ready'; installation: HopperInstallation }
  | { status: 'unavailable'; reason: string; remediation: string };

/** Where Hopper installs itself when `HOPPER_LAUNCHER_PATH` is not set (macOS application bundles). */
export const HOPPER_DEFAULT_LAUNCHERS: readonly string[] = [
  '/Applications/Hopper Disassembler.app/Contents/MacOS/hopper',
  '/Applications/Hopper Disassembler v5.app/Contents/MacOS/hopper',
  '/Applications/Hopper Disassembler v4.app/Contents/MacOS/hopper',
];

/** The supported major versions: Hopper 4 and 5 (Python scripting). */
export const SUPPORTED_HOPPER_MAJORS: readonly number[] = [4, 5];

const INSTALL =
  'Install Hopper Disassembler 4 or 5 (https://www.hopperapp.com), or set HOPPER_LAUNCHER_PATH to its command-line launcher.';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The bundle version from `Contents/Info.plist` beside `Contents/MacOS/<launcher>` (XML plist), or null. */
function bundleVersion(launcher: string): string | null {
  try {
    const plist = readFileSync(join(dirname(dirname(launcher)), 'Info.plist'), 'utf8');
    const match = /<key>CFBundleShortVersionString<\/key>\s*<string>([^<]+)<\/string>/.exec(plist);
    return match ? match[1]!.trim() : null;
  } catch {
    return null;
  }
}

/**
 * Finds Hopper from `HOPPER_LAUNCHER_PATH` or the default install locations, reading only files (the
 * launcher's mode and the bundle's `Info.plist`): it starts nothing. A Linux install's `bin/Hopper`
 * has no such file and is ready with version {@link HOPPER_UNKNOWN_VERSION}.
 */
export function discoverHopper(launcherPath: string | null | undefined): HopperDiscovery {
  const candidates = launcherPath ? [launcherPath] : HOPPER_DEFAULT_LAUNCHERS;
  const launcher = candidates.find(executable);
  if (!launcher) {
    return {
      status: 'unavailable',
      reason: launcherPath
        ? `HOPPER_LAUNCHER_PATH (${launcherPath}) is not an executable file`
        : 'HOPPER_LAUNCHER_PATH is not set and Hopper is not in its default install locations',
      remediation: INSTALL,
    };
  }
  const version = bundleVersion(launcher);
  if (version === null && linuxLauncher(launcher)) {
    return { status: 'ready', installation: { launcher, version: HOPPER_UNKNOWN_VERSION } };
  }
  if (version === null) {
    return {
      status: 'unavailable',
      reason: `the Hopper at ${launcher} does not state its version (no Contents/Info.plist beside it)`,
      remediation: `Point HOPPER_LAUNCHER_PATH at the launcher inside the Hopper application bundle (Contents/MacOS/hopper) or a Linux install's bin/Hopper. ${INSTALL}`,
    };
  }
  const major = Number.parseInt(version, 10);
  if (!SUPPORTED_HOPPER_MAJORS.includes(major)) {
    return {
      status: 'unavailable',
      reason: `Hopper ${version} is not supported (REA supports Hopper 4 and 5)`,
      remediation: INSTALL,
    };
  }
  return { status: 'ready', installation: { launcher, version } };
}

import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ReaError } from '@rea/evidence';

/** Where Hopper is downloaded from; REA never downloads it itself. */
export const HOPPER_DOWNLOAD_PAGE = 'https://www.hopperapp.com/download.html';

/** A local Hopper package format and the platforms it can be installed on. */
export type HopperPackageFormat = 'zip' | 'deb' | 'tar.xz';

/** What `rea setup --hopper` will do: the package used, how it is unpacked, and where it goes. */
export interface HopperInstallPlan {
  package: string;
  format: HopperPackageFormat;
  /** How the package is unpacked (`@rea/artifact`, `dpkg-deb -x`, `tar -xJf`). */
  extractor: string;
  /** The directory Hopper is installed into; it does not exist yet and is created by the install. */
  target: string;
  /** Ancestors of the target that do not exist and are created too (outermost first). */
  creates: string[];
}

const FORMATS: ReadonlyArray<{ suffix: string; format: HopperPackageFormat; platforms: readonly NodeJS.Platform[] }> = [
  { suffix: '.zip', format: 'zip', platforms: ['darwin', 'linux'] },
  { suffix: '.deb', format: 'deb', platforms: ['linux'] },
  { suffix: '.tar.xz', format: 'tar.xz', platforms: ['linux'] },
];

const EXTRACTORS: Record<HopperPackageFormat, string> = {
  zip: 'ZIP extraction (@rea/artifact)',
  deb: 'dpkg-deb -x',
  'tar.xz': 'tar -xJf',
};

/** The per-user default install directory: `~/Applications/Hopper` on macOS, `~/.local/opt/hopper` elsewhere. */
export function defaultHopperTarget(home: string, platform: NodeJS.Platform): string {
  return platform === 'darwin' ? join(home, 'Applications', 'Hopper') : join(home, '.local', 'opt', 'hopper');
}

function packageFormat(path: string, platform: NodeJS.Platform): HopperPackageFormat {
  const name = basename(path).toLowerCase();
  const supported = FORMATS.filter((f) => f.platforms.includes(platform)).map((f) => f.suffix);
  const known = FORMATS.find((f) => name.endsWith(f.suffix));
  if (known && known.platforms.includes(platform)) return known.format;
  const dmg = name.endsWith('.dmg');
  throw new ReaError(
    known || dmg ? 'capability_unavailable' : 'unsupported_target',
    `${path} is not a Hopper package REA can install on ${platform} (supported here: ${supported.join(', ')}).`,
    {
      details: { reason: 'package-format', package: path, supported },
      remediation: dmg
        ? 'Open the .dmg, copy the Hopper application where you want it, and set HOPPER_LAUNCHER_PATH to its Contents/MacOS/hopper; or use the .zip download.'
        : `Download the package for this platform from ${HOPPER_DOWNLOAD_PAGE} and pass its path to --hopper.`,
    },
  );
}

/** The missing ancestors of `dir` (outermost first), and the nearest existing one. */
function missingAncestors(dir: string): { creates: string[]; existing: string } {
  const creates: string[] = [];
  let current = dirname(dir);
  while (!existsSync(current) && dirname(current) !== current) {
    creates.unshift(current);
    current = dirname(current);
  }
  return { creates, existing: current };
}

/**
 * Plans installing Hopper from a local package into `target`, reading only: the package must be a
 * regular file of a format supported on this platform, the target absent or an empty directory, and
 * its nearest existing ancestor a writable directory.
 */
export function planHopperInstall(
  packagePath: string,
  target: string,
  cwd: string,
  platform: NodeJS.Platform,
): HopperInstallPlan {
  const pkg = resolve(cwd, packagePath);
  const dir = resolve(cwd, target);
  let isFile: boolean;
  try {
    isFile = statSync(pkg).isFile();
  } catch {
    throw new ReaError('not_found', `The Hopper package ${pkg} does not exist.`, {
      details: { reason: 'package-missing', package: pkg },
      remediation: `Download Hopper from ${HOPPER_DOWNLOAD_PAGE} and pass the downloaded file's path to --hopper.`,
    });
  }
  if (!isFile) {
    throw new ReaError('unsupported_target', `The Hopper package ${pkg} is not a regular file.`, {
      details: { reason: 'package-format', package: pkg },
      remediation: 'Pass the downloaded package file itself (.zip, .deb or .tar.xz) to --hopper.',
    });
  }
  const format = packageFormat(pkg, platform);
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new ReaError('invalid_request', `The install directory ${dir} already exists and is not empty.`, {
      details: { reason: 'target-not-empty', target: dir },
      remediation: 'Choose a new or empty directory with --hopper-dir; REA never installs over existing files.',
    });
  }
  const { creates, existing } = missingAncestors(dir);
  const parent = existsSync(dir) ? dirname(dir) : existing; // the install is staged beside the target
  try {
    if (!statSync(parent).isDirectory()) throw new Error('not a directory');
    accessSync(parent, constants.W_OK | constants.X_OK);
  } catch {
    throw new ReaError('access_denied', `Cannot create ${dir}: ${parent} is not a writable directory.`, {
      details: { reason: 'target-not-writable', target: dir, parent },
      remediation:
        'Choose a directory you can write to with --hopper-dir (REA installs per user, never system-wide unless you name such a directory).',
    });
  }
  return { package: pkg, format, extractor: EXTRACTORS[format], target: dir, creates };
}

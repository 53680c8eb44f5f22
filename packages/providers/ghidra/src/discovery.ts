import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** The Ghidra versions the bridge script is written for: 11.0 up to (not including) 13. */
export const SUPPORTED_GHIDRA = { min: [11, 0], below: [13, 0] } as const;

/** A Ghidra installation REA can run. */
export interface GhidraInstallation {
  installDir: string;
  /** `application.version` of the installation, e.g. `11.3.1`. */
  version: string;
  /** `support/analyzeHeadless`. */
  headless: string;
  /** The JDK it runs on, and that JDK's version. */
  javaHome: string;
  javaVersion: string;
}

/** What discovery found: an installation, or why there is none usable and what to do. */
export type GhidraDiscovery =
  | { status: 'ready'; installation: GhidraInstallation }
  | { status: 'unavailable'; reason: string; remediation: string };

const INSTALL = 'Install Ghidra 11.x or 12.x (https://ghidra-sre.org) and set GHIDRA_INSTALL_DIR to its directory.';

function properties(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([\w.]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match && !line.trimStart().startsWith('#')) map.set(match[1]!, match[2]!);
  }
  return map;
}

function numbers(version: string): number[] {
  return version.split(/[._-]/).map((part) => Number.parseInt(part, 10));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The JDK home of `java` on PATH (following links to the real binary), or null. */
function javaOnPath(pathVariable: string | undefined): string | null {
  for (const directory of (pathVariable ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(directory, 'java');
    if (executable(candidate)) return dirname(dirname(realpathSync(candidate)));
  }
  return null;
}

/** The major version of a JDK from its `release` file (`JAVA_VERSION="21.0.2"`), or null. */
function jdkVersion(javaHome: string): string | null {
  try {
    const match = /^JAVA_VERSION="?([^"\n]+)"?/m.exec(readFileSync(join(javaHome, 'release'), 'utf8'));
    return match ? match[1]! : null;
  } catch {
    return null;
  }
}

/**
 * Finds Ghidra from `GHIDRA_INSTALL_DIR` and its JDK from `JAVA_HOME` or `java` on PATH, reading only
 * files (`Ghidra/application.properties`, the JDK's `release`): it starts nothing. The Ghidra version
 * must be supported ({@link SUPPORTED_GHIDRA}) and the JDK at least the one the installation requires
 * (`application.java.min`, else 21 from Ghidra 11.2 on and 17 before).
 */
export function discoverGhidra(env: {
  GHIDRA_INSTALL_DIR?: string | null;
  JAVA_HOME?: string | null;
  PATH?: string;
}): GhidraDiscovery {
  const installDir = env.GHIDRA_INSTALL_DIR;
  if (!installDir) return { status: 'unavailable', reason: 'GHIDRA_INSTALL_DIR is not set', remediation: INSTALL };
  let props: Map<string, string>;
  try {
    props = properties(readFileSync(join(installDir, 'Ghidra', 'application.properties'), 'utf8'));
  } catch {
    return {
      status: 'unavailable',
      reason: `GHIDRA_INSTALL_DIR (${installDir}) has no Ghidra/application.properties`,
      remediation: `Point GHIDRA_INSTALL_DIR at the directory that holds support/analyzeHeadless. ${INSTALL}`,
    };
  }
  const version = props.get('application.version') ?? '';
  const [major = NaN, minor = NaN] = numbers(version);
  const tooOld = major < SUPPORTED_GHIDRA.min[0];
  if (!Number.isFinite(major) || tooOld || major >= SUPPORTED_GHIDRA.below[0]) {
    return {
      status: 'unavailable',
      reason: `Ghidra ${version || '(unknown version)'} at ${installDir} is not supported (REA supports 11.x and 12.x)`,
      remediation: INSTALL,
    };
  }
  const headless = join(installDir, 'support', 'analyzeHeadless');
  if (!executable(headless)) {
    return {
      status: 'unavailable',
      reason: `${headless} is missing or not executable`,
      remediation: `Reinstall Ghidra ${version} or repair its support/analyzeHeadless.`,
    };
  }
  const javaHome = env.JAVA_HOME || javaOnPath(env.PATH);
  const required = Number(props.get('application.java.min') ?? (major > 11 || minor >= 2 ? 21 : 17));
  const jdkRemedy = `Install JDK ${required} or later and set JAVA_HOME to it.`;
  if (!javaHome || !executable(join(javaHome, 'bin', 'java'))) {
    return {
      status: 'unavailable',
      reason: 'no Java runtime found (JAVA_HOME or java on PATH)',
      remediation: jdkRemedy,
    };
  }
  const javaVersion = jdkVersion(javaHome);
  if (javaVersion === null) {
    return {
      status: 'unavailable',
      reason: `the Java runtime at ${javaHome} does not state its version (no release file)`,
      remediation: jdkRemedy,
    };
  }
  const javaMajor = numbers(javaVersion.replace(/^1\./, ''))[0] ?? 0;
  if (javaMajor < required) {
    return {
      status: 'unavailable',
      reason: `Ghidra ${version} needs JDK ${required} or later; ${javaHome} is ${javaVersion}`,
      remediation: jdkRemedy,
    };
  }
  return { status: 'ready', installation: { installDir, version, headless, javaHome, javaVersion } };
}

import { chmodSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The stand-in engine script (see standin/README.md): not Ghidra, not Hopper. */
export const STANDIN_ENGINE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'standin',
  'standin-bridge-engine.mjs',
);

/** How a stand-in engine behaves. */
export interface StandinScenario {
  mode: 'normal' | 'slow' | 'hang' | 'crash' | 'wrong-digest' | 'garbage';
  /** For `slow`: how long before the bridge connects, in ms. */
  delayMs?: number;
  /** Repeats the body of every pseudocode answer (to make oversized results). */
  pseudocodeRepeat?: number;
}

function launcher(path: string, engine: 'ghidra' | 'hopper', scenarioFile: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(
    path,
    `#!/bin/sh\n# stand-in ${engine} launcher for REA's tests\nexec ${quote(process.execPath)} ${quote(STANDIN_ENGINE)} ${quote(scenarioFile)} "$@"\n`,
  );
  chmodSync(path, 0o755);
}

/** Writes (or rewrites) the scenario the stand-in launchers under `dir` read. */
export function setStandinScenario(dir: string, engine: 'ghidra' | 'hopper', scenario: StandinScenario): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `standin-${engine}-scenario.json`);
  const version = engine === 'ghidra' ? '11.3.1' : '5.19.3';
  writeFileSync(
    file,
    JSON.stringify({
      engine,
      version,
      mode: scenario.mode,
      delay_ms: scenario.delayMs ?? 25_000,
      pseudocode_repeat: scenario.pseudocodeRepeat ?? 1,
    }),
  );
  return file;
}

/**
 * Lays out a stand-in Ghidra installation under `dir`: `ghidra/Ghidra/application.properties`
 * (version 11.3.1, JDK 21), `ghidra/support/analyzeHeadless` starting the stand-in engine, and a
 * stand-in JDK home (`jdk/release`, `jdk/bin/java`, never run). Returns the environment to use.
 */
export function createStandinGhidra(
  dir: string,
  scenario: StandinScenario,
): { GHIDRA_INSTALL_DIR: string; JAVA_HOME: string } {
  const install = join(dir, 'ghidra');
  mkdirSync(join(install, 'Ghidra'), { recursive: true });
  writeFileSync(
    join(install, 'Ghidra', 'application.properties'),
    'application.name=Ghidra\napplication.version=11.3.1\napplication.java.min=21\n',
  );
  launcher(join(install, 'support', 'analyzeHeadless'), 'ghidra', setStandinScenario(dir, 'ghidra', scenario));
  const jdk = join(dir, 'jdk');
  mkdirSync(join(jdk, 'bin'), { recursive: true });
  writeFileSync(join(jdk, 'release'), 'JAVA_VERSION="21.0.2"\n');
  writeFileSync(join(jdk, 'bin', 'java'), '#!/bin/sh\necho "stand-in JDK: not a Java runtime" >&2\nexit 1\n');
  chmodSync(join(jdk, 'bin', 'java'), 0o755);
  return { GHIDRA_INSTALL_DIR: install, JAVA_HOME: jdk };
}

/**
 * Lays out a stand-in Hopper application bundle under `dir` (`hopper/Contents/Info.plist` stating
 * version 5.19.3, `hopper/Contents/MacOS/hopper` starting the stand-in engine) and returns the
 * environment naming its launcher.
 */
export function createStandinHopper(dir: string, scenario: StandinScenario): { HOPPER_LAUNCHER_PATH: string } {
  const contents = join(dir, 'hopper', 'Contents');
  const path = join(contents, 'MacOS', 'hopper');
  launcher(path, 'hopper', setStandinScenario(dir, 'hopper', scenario));
  writeFileSync(
    join(contents, 'Info.plist'),
    '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>\n<key>CFBundleShortVersionString</key>\n<string>5.19.3</string>\n</dict></plist>\n',
  );
  return { HOPPER_LAUNCHER_PATH: path };
}

/**
 * Lays out a stand-in Linux Hopper install under `dir` (`hopper-linux/bin/Hopper` starting the
 * stand-in engine, as `rea setup --hopper` unpacks a Linux package: no file states a version) and
 * returns the environment naming its launcher.
 */
export function createStandinLinuxHopper(dir: string, scenario: StandinScenario): { HOPPER_LAUNCHER_PATH: string } {
  const path = join(dir, 'hopper-linux', 'bin', 'Hopper');
  launcher(path, 'hopper', setStandinScenario(dir, 'hopper', scenario));
  return { HOPPER_LAUNCHER_PATH: path };
}

/** Pids of live stand-in engine processes whose command line names a file under `dir`. */
export function standinProcesses(dir: string): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return pids;
  }
  for (const pid of entries) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (command.includes(STANDIN_ENGINE) && command.includes(dir)) pids.push(Number(pid));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

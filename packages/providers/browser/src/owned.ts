import { accessSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ReaError } from '@rea/evidence';
import type { OwnedProcess, ProcessSupervisor } from '@rea/provider-kit';
import { createKeptTabs } from './keptTabs.js';
import type { KeptTabs } from './keptTabs.js';

/** The executables tried, in order, when REA_CHROME_PATH is unset. */
export const CHROME_NAMES = Object.freeze(['chromium', 'chromium-browser', 'google-chrome']);

const REMEDY =
  'Install Chromium (Debian/Ubuntu: apt-get install chromium; macOS: brew install --cask chromium) or set REA_CHROME_PATH to a Chrome or Chromium executable; or pass a loopback DevTools endpoint.';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The browser executable for endpoint "owned": `chromePath` (REA_CHROME_PATH) when set, else the first
 * of {@link CHROME_NAMES} on PATH. `capability_unavailable` with the remedy when there is none.
 */
export function findChrome(chromePath: string | null, pathVariable = process.env['PATH'] ?? ''): string {
  if (chromePath !== null) {
    if (executable(chromePath)) return chromePath;
    throw new ReaError('capability_unavailable', `REA_CHROME_PATH=${chromePath} is not an executable file.`, {
      details: { reason: 'browser-not-found', variable: 'REA_CHROME_PATH', path: chromePath },
      remediation: REMEDY,
    });
  }
  for (const name of CHROME_NAMES) {
    for (const dir of pathVariable.split(delimiter).filter(Boolean)) {
      if (executable(join(dir, name))) return join(dir, name);
    }
  }
  throw new ReaError(
    'capability_unavailable',
    `No Chromium found: REA_CHROME_PATH is unset and none of ${CHROME_NAMES.join(', ')} is on PATH.`,
    {
      details: { reason: 'browser-not-found', tried: [...CHROME_NAMES] },
      remediation: REMEDY,
    },
  );
}

/** A running owned browser: its DevTools port and browser WebSocket path, its process and profile. */
export interface OwnedBrowser {
  port: number;
  /** The tabs it keeps for later calls of its session (see {@link KeptTabs}). */
  tabs: KeptTabs;
  browserPath: string;
  process: OwnedProcess;
  profileDir: string;
}

/** The flags of an owned browser: headless, loopback DevTools on a free port, a fresh profile. */
export function chromeFlags(profileDir: string): string[] {
  return [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--no-default-browser-check',
    // The browser's own WebMCP surface (document.modelContext and the DevTools WebMCP domain).
    '--enable-features=WebMCP',
    '--remote-debugging-address=127.0.0.1',
    '--remote-debugging-port=0',
    `--user-data-dir=${profileDir}`,
    'about:blank',
  ];
}

/**
 * Points the profile's download directory inside the profile: a download the browser saves on its own
 * (a page tool's `url` that is an attachment, a page's own download) goes with the profile, not into the
 * user's `~/Downloads`. A scenario directs its downloads itself (`Browser.setDownloadBehavior`).
 */
function keepDownloadsInProfile(profileDir: string): void {
  mkdirSync(join(profileDir, 'Default'), { recursive: true });
  const download = { default_directory: join(profileDir, 'downloads'), prompt_for_download: false };
  writeFileSync(join(profileDir, 'Default', 'Preferences'), JSON.stringify({ download }));
}

/**
 * The environment an owned browser adds to this process's: the profile is its temporary directory and its
 * home, and the XDG folders a desktop program writes to are under it, whatever the user's are.
 */
function ownedEnvironment(profileDir: string): Record<string, string> {
  return {
    TMPDIR: profileDir,
    HOME: profileDir,
    XDG_CONFIG_HOME: join(profileDir, '.config'),
    XDG_CACHE_HOME: join(profileDir, '.cache'),
    XDG_DATA_HOME: join(profileDir, '.local', 'share'),
    XDG_DOWNLOAD_DIR: join(profileDir, 'downloads'),
  };
}

function activePort(profileDir: string): { port: number; browserPath: string } | null {
  try {
    const [port, path] = readFileSync(join(profileDir, 'DevToolsActivePort'), 'utf8').split('\n');
    const number = Number(port);
    if (Number.isInteger(number) && number > 0 && path?.startsWith('/devtools/browser/'))
      return { port: number, browserPath: path };
  } catch {
    // not written yet
  }
  return null;
}

/**
 * Starts a headless Chromium through `supervisor` with a fresh owned profile directory (`rea-chrome-…`),
 * and waits for it to write its DevTools port. `signal` bounds the startup only: once the port is
 * announced the browser lives until its supervisor closes (the call's, or the session's), which ends
 * it and removes the profile. The browser's TMPDIR is the profile, so it leaves nothing elsewhere.
 */
export async function launchOwned(
  supervisor: ProcessSupervisor,
  executablePath: string,
  signal: AbortSignal,
): Promise<OwnedBrowser> {
  const profileDir = await supervisor.createTempDir('chrome');
  keepDownloadsInProfile(profileDir);
  const starting = new AbortController();
  const stop = () => starting.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  try {
    const process = await supervisor.start(executablePath, chromeFlags(profileDir), {
      // Chromium keeps its singleton socket in a directory of its own under TMPDIR, which a killed
      // browser leaves behind: under the profile it goes with the profile. It also writes under the
      // user's home whatever --user-data-dir does not cover: its crash-report settings, dconf's cache, and
      // each download's temporary file, made in ~/Downloads when that folder exists. With the profile as
      // its home it touches nothing of the user's.
      env: ownedEnvironment(profileDir),
      signal: starting.signal,
    });
    for (;;) {
      const found = activePort(profileDir);
      if (found) return { ...found, process, profileDir, tabs: createKeptTabs() };
      const exit = process.exit();
      if (exit !== null) {
        throw new ReaError('execution_failure', `${executablePath} exited before announcing its DevTools port.`, {
          details: {
            reason: 'browser-exited',
            command: executablePath,
            exit_code: exit.exitCode,
            stderr: process.stderrTail().slice(-1024),
          },
          remediation:
            'Check that the browser starts headless on this machine (run it with --headless=new), or set REA_CHROME_PATH to another executable.',
        });
      }
      if (signal.aborted) throw signal.reason;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

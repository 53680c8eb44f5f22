import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The path of a folder in the public reference test data (`../shared/testdata/<name>` beside the
 * repository), or null when that folder is absent — callers skip with a printed reason.
 */
export function sharedTestdata(name: string): string | null {
  const dir = join(repoRoot, '..', 'shared', 'testdata', name);
  return existsSync(dir) ? dir : null;
}

/** Runs `fn` with a fresh temporary directory that is removed afterwards. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'rea-test-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A temporary directory of a test file's own for the servers it starts: see {@link serverTempDir}. */
export interface ServerTempDir {
  /** The directory (the servers' TMPDIR). */
  dir: string;
  /** The names in it that match `pattern`. */
  entries(pattern: RegExp): string[];
  /**
   * Waits (up to 10 s, for a server still exiting) until no REA-named entry is left, removes the
   * directory, and resolves to the REA-named entries that were left.
   */
  finish(): Promise<string[]>;
}

const REA_NAMED = /^\.?rea[-_.]/i;

/**
 * A temporary directory for the servers a test file starts, so that what other test files create in the
 * shared one at the same time is not counted as the servers', while what the servers leave behind is
 * still found, as the run's own check of the shared directory would find it.
 */
export function serverTempDir(): ServerTempDir {
  const dir = mkdtempSync(join(tmpdir(), 'rea-test-server-tmp-'));
  const entries = (pattern: RegExp): string[] => readdirSync(dir).filter((name) => pattern.test(name));
  return {
    dir,
    entries,
    finish: async () => {
      for (let waited = 0; waited < 10_000 && entries(REA_NAMED).length > 0; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const left = entries(REA_NAMED);
      rmSync(dir, { recursive: true, force: true });
      return left;
    },
  };
}

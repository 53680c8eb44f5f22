import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The file at `relative` inside the installed package `name`, found through that package's manifest as
 * the module at `from` (its `import.meta.url`) resolves it by name, or null when the package cannot be
 * resolved or the file is missing. Found by name, the answer is the same when the calling module runs
 * from its own package and when it is bundled into an application that depends on it: how a package
 * finds the worker modules and scripts it ships beside its code (`dist/engine/digestWorker.js`).
 */
export function packageFile(from: string, name: string, relative: string): string | null {
  try {
    const manifest = createRequire(from).resolve(`${name}/package.json`);
    const path = join(dirname(manifest), relative);
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

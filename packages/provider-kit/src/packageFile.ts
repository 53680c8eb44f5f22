import { existsSync, readFileSync } from 'node:fs';
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

/**
 * The versions of the packages an application bundle contains, as their manifests stated them when it was
 * built (rea's bundles define it; see packages/rea/scripts/bundleOptions.mjs). Undefined outside a bundle.
 */
declare const __REA_BUNDLED_VERSIONS__: Readonly<Record<string, string>> | undefined;

/**
 * The version of package `name` whose code is running: in a bundle, the version its manifest stated when
 * the bundle was built (the code inside is that version's, whatever else is installed beside it); outside
 * one, the installed manifest's, found by name as the module at `from` (its `import.meta.url`) resolves it.
 * A bundle answers without resolving or reading anything, which on a cold start costs milliseconds.
 */
export function packageVersion(from: string, name: string): string {
  const bundled =
    typeof __REA_BUNDLED_VERSIONS__ === 'object' && Object.hasOwn(__REA_BUNDLED_VERSIONS__, name)
      ? __REA_BUNDLED_VERSIONS__[name]
      : undefined;
  if (bundled !== undefined) return bundled;
  const manifest = createRequire(from).resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

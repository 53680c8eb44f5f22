import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package name a manifest states, or null when it states none or cannot be read. */
function manifestName(path: string): string | null {
  try {
    const name = (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name;
    return typeof name === 'string' ? name : null;
  } catch {
    return null;
  }
}

/**
 * The directory of the installed package `name` as the module at `from` (its `import.meta.url`, or a path)
 * finds it, with links resolved: the package `from` is in, when that is the one (a package naming itself),
 * else the first `node_modules/<name>` holding a manifest in `from`'s directory or one above it (skipping
 * `node_modules` folders themselves), as Node.js looks for packages. Null when there is none.
 *
 * Only a package's place is looked up: no `exports` map is read (where a package is does not depend on
 * it). Unlike Node.js, it takes the package a module is in by its manifest's name alone (Node.js needs an
 * `exports` map there), passes over a `node_modules/<name>` folder without a manifest, and always
 * follows links (as Node.js does unless run with `--preserve-symlinks`). That spares the first lookup of a run the loading and first run of Node.js's package-exports
 * resolver, about 4 ms of `rea analyze`, which finds its embedded engine this way on every run.
 */
export function packageDirectory(from: string, name: string): string | null {
  const start = dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
  // The package `from` is in: the nearest folder with a manifest.
  for (let directory = start; ; directory = dirname(directory)) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest)) {
      if (manifestName(manifest) === name) return realpathSync(directory);
      break;
    }
    if (dirname(directory) === directory) break;
  }
  for (let directory = start; ; directory = dirname(directory)) {
    if (basename(directory) !== 'node_modules') {
      const candidate = join(directory, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    }
    if (dirname(directory) === directory) return null;
  }
}

/**
 * The file at `relative` inside the installed package `name`, found by name from the module at `from` (its
 * `import.meta.url`) with {@link packageDirectory} (else as Node.js resolves `<name>/package.json`), or null
 * when the package cannot be found or the file is missing. Found by name, the answer is the same when the calling module runs
 * from its own package and when it is bundled into an application that depends on it: how a package
 * finds the worker modules and scripts it ships beside its code (`dist/engine/digestWorker.js`).
 */
export function packageFile(from: string, name: string, relative: string): string | null {
  try {
    const directory = packageDirectory(from, name) ?? dirname(createRequire(from).resolve(`${name}/package.json`));
    const path = join(directory, relative);
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
 * one, the installed manifest's, found by name from the module at `from` (its `import.meta.url`) as
 * {@link packageFile} finds it. A bundle answers without resolving or reading anything, which on a cold start costs milliseconds.
 */
export function packageVersion(from: string, name: string): string {
  const bundled =
    typeof __REA_BUNDLED_VERSIONS__ === 'object' && Object.hasOwn(__REA_BUNDLED_VERSIONS__, name)
      ? __REA_BUNDLED_VERSIONS__[name]
      : undefined;
  if (bundled !== undefined) return bundled;
  // Found as packageFile finds it; where it finds nothing, Node.js's resolution says why (MODULE_NOT_FOUND).
  const manifest = packageFile(from, name, 'package.json') ?? createRequire(from).resolve(`${name}/package.json`);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

// Reads the workspace: every package folder named by pnpm-workspace.yaml, with its manifest.
// Used by the build, the jest configuration, the pack check and the pin test, so that adding a
// package needs no change to any of them.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

function workspaceGlobs() {
  const text = readFileSync(join(repoRoot, 'pnpm-workspace.yaml'), 'utf8');
  const globs = [];
  let inPackages = false;
  for (const line of text.split('\n')) {
    if (/^packages:\s*$/.test(line)) {
      inPackages = true;
      continue;
    }
    if (inPackages) {
      const m = /^\s+-\s+(.+?)\s*$/.exec(line);
      if (m) globs.push(m[1].replace(/^["']|["']$/g, ''));
      else if (/^\S/.test(line)) inPackages = false;
    }
  }
  return globs;
}

/**
 * Lists the workspace packages as `{ dir, relDir, manifest }`, sorted by package name.
 * Supports the two glob shapes the workspace uses: `a/*` and a plain folder.
 */
export function listPackages() {
  const out = [];
  for (const glob of workspaceGlobs()) {
    const dirs = [];
    if (glob.endsWith('/*')) {
      const parent = join(repoRoot, glob.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const entry of readdirSync(parent, { withFileTypes: true })) {
        if (entry.isDirectory()) dirs.push(join(glob.slice(0, -2), entry.name));
      }
    } else {
      dirs.push(glob);
    }
    for (const relDir of dirs) {
      const file = join(repoRoot, relDir, 'package.json');
      if (!existsSync(file)) continue;
      out.push({ dir: join(repoRoot, relDir), relDir, manifest: JSON.parse(readFileSync(file, 'utf8')) });
    }
  }
  return out.sort((a, b) => (a.manifest.name < b.manifest.name ? -1 : a.manifest.name > b.manifest.name ? 1 : 0));
}

/** Workspace dependencies of a package that its build needs (not devDependencies). */
export function workspaceDeps(pkg, byName) {
  const m = pkg.manifest;
  const names = new Set();
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const name of Object.keys(m[field] ?? {})) if (byName.has(name) && name !== m.name) names.add(name);
  }
  return [...names].sort();
}

/** Packages in dependency order (dependencies first); throws on a cycle. */
export function topologicalOrder(packages = listPackages()) {
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const done = new Set();
  const visiting = new Set();
  const order = [];
  const visit = (pkg) => {
    const name = pkg.manifest.name;
    if (done.has(name)) return;
    if (visiting.has(name)) throw new Error(`dependency cycle through ${name}`);
    visiting.add(name);
    for (const dep of workspaceDeps(pkg, byName)) visit(byName.get(dep));
    visiting.delete(name);
    done.add(name);
    order.push(pkg);
  };
  for (const pkg of packages) visit(pkg);
  return order;
}

/**
 * Maps each export subpath of a package to its TypeScript source, by the convention that
 * `./dist/<path>.js` is built from `./src/<path>.ts`.
 */
export function sourceEntries(pkg) {
  const exportsField = pkg.manifest.exports ?? {};
  const entries = [];
  for (const [key, value] of Object.entries(exportsField)) {
    if (key === './package.json') continue;
    const target = typeof value === 'string' ? value : (value.import ?? value.default);
    if (typeof target !== 'string') continue;
    let src;
    if (target.startsWith('./dist/')) src = target.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts');
    else if (target.startsWith('./src/') && target.endsWith('.ts')) src = target;
    else continue;
    entries.push({
      specifier: key === '.' ? pkg.manifest.name : `${pkg.manifest.name}/${key.slice(2)}`,
      source: join(pkg.dir, src),
    });
  }
  return entries;
}

// Resolving what a module names to nodes of the graph: files of the input, Node built-ins, packages.
import { builtinOf } from './facts.js';
import { fileNodeId } from './inventory.js';
import { resolveWithin } from './sourceMaps.js';

// Node's own suffixes (.js, .json, .node: a native addon) and the ES module ones.
const FILE_SUFFIXES = ['', '.js', '.mjs', '.cjs', '.json', '.node'];
const FOLDER_FILES = ['index.js', 'index.mjs', 'index.cjs'];

/** What a specifier resolved to. */
export interface Resolution {
  to: string | null;
  target_kind: 'module' | 'builtin' | 'package' | 'unresolved';
}

/** The package a bare specifier names (`@scope/name` or `name`), or null for a relative one. */
export function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || /^[a-z]+:/i.test(specifier)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * The `main` of each package.json of the input, by the folder holding it (`''` for the input's root,
 * `lib/`, `app.asar!/`), for {@link resolveFile}.
 */
export function mainsByFolder(manifests: readonly { path: string; main: string | null }[]): Map<string, string> {
  const mains = new Map<string, string>();
  for (const { path, main } of manifests)
    if (main !== null && path.endsWith('package.json')) mains.set(path.slice(0, -'package.json'.length), main);
  return mains;
}

/**
 * The file of `known` that a relative `reference` from `from` names, as Node finds it: the file with
 * one of its suffixes, else the folder's package.json `main` (from `mains`, see {@link mainsByFolder}),
 * else the folder's index file. A reference that ends in a slash, or is `.` or `..` (`require('..')`),
 * names a folder only.
 */
export function resolveFile(
  from: string,
  reference: string,
  known: ReadonlySet<string>,
  mains: ReadonlyMap<string, string> = new Map(),
): string | null {
  const folderOnly = reference.endsWith('/') || /(^|\/)\.\.?$/.test(reference);
  const base = resolveWithin(from, reference);
  if (base === null) return null;
  // The input's root is '' and a container's root 'x.asar!/' (what climbing to it gives: '.', 'x.asar!/.').
  let bare = base.replace(/\/+$/, '');
  if (bare === '.') bare = '';
  else if (bare.endsWith('!/.')) bare = bare.slice(0, -1);
  const atRoot = bare === '' || bare.endsWith('!/');
  if (!folderOnly && !atRoot) {
    for (const suffix of FILE_SUFFIXES) if (known.has(bare + suffix)) return bare + suffix;
  }
  const folder = atRoot ? bare : `${bare}/`;
  // The folder's main, as a reference from its package.json: the file (with a suffix) or its index. A
  // main's own folder's package.json is not read again, as Node does not.
  const main = mains.get(folder);
  const named =
    main === undefined ? null : resolveFile(`${folder}package.json`, main.startsWith('.') ? main : `./${main}`, known);
  if (named !== null) return named;
  for (const name of FOLDER_FILES) if (known.has(folder + name)) return folder + name;
  return null;
}

/**
 * Resolves `specifier` imported by the file at `from`: a Node built-in (`builtin:<name>`), a file of
 * the input (`file:<path>`), a package (`package:<name>`), or unresolved (a relative path that names
 * no file of the input, or a URL).
 */
export function resolveSpecifier(
  from: string,
  specifier: string,
  known: ReadonlySet<string>,
  mains: ReadonlyMap<string, string> = new Map(),
): Resolution {
  const builtin = builtinOf(specifier);
  if (builtin !== null) return { to: `builtin:${builtin}`, target_kind: 'builtin' };
  const pkg = packageOf(specifier);
  if (pkg !== null) return { to: `package:${pkg}`, target_kind: 'package' };
  const file = specifier.startsWith('.') ? resolveFile(from, specifier, known, mains) : null;
  return file === null ? { to: null, target_kind: 'unresolved' } : { to: fileNodeId(file), target_kind: 'module' };
}

/**
 * Resolves `path`, named relative to a build's base (Vite's preload lists: `assets/x.js`), from the file
 * at `from`: the file of `known` at that path under the nearest folder holding `from` (within its
 * container), or unresolved.
 */
export function resolveFromBase(from: string, path: string, known: ReadonlySet<string>): Resolution {
  const cut = from.lastIndexOf('!/');
  const container = cut < 0 ? '' : from.slice(0, cut + 2);
  const parts = (cut < 0 ? from : from.slice(cut + 2)).split('/').slice(0, -1);
  const clean = path.replace(/^\.?\//, '');
  for (let depth = parts.length; depth >= 0; depth -= 1) {
    const candidate = container + [...parts.slice(0, depth), clean].join('/');
    if (known.has(candidate)) return { to: fileNodeId(candidate), target_kind: 'module' };
  }
  return { to: null, target_kind: 'unresolved' };
}

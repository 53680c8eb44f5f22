// A source tree against a bundle's source maps: each source the maps name is found in the tree by
// the longest suffix of its name (bundler prefixes such as webpack://app/ and leading ../ removed) and
// compared with the map's sourcesContent by SHA-256; files of the tree that no map names are listed,
// apart from the build outputs and project files the tree holds beside its sources (see NotCompared).
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { lstat, readFile, readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { throwIfAborted } from '@rea/evidence';
import type { JavascriptApplication } from '../schemas.js';

/** Files of the tree looked at, at most (node_modules and dot directories are skipped). */
export const MAX_TREE_FILES = 20_000;
/** Sources listed at most. */
export const MAX_SOURCE_ROWS = 5_000;
const SOURCE_FILE = /\.(?:[cm]?[jt]sx?|vue|svelte|css|scss|less|json)$/i;

/** One source a map names, as found in the tree. */
export interface SourceRow {
  node_id: string;
  source: string;
  status: 'identical' | 'differs' | 'missing' | 'unverifiable';
  path: string | null;
}

/**
 * A file of the tree no map names that is no source module either: a `build-output` (byte for byte a
 * file of the analyzed application, or a script ending in the `sourceMappingURL` comment compilers and
 * bundlers append to what they emit) or a `project-file` (package.json, a lockfile, tsconfig/jsconfig,
 * a `*.config.*` tool configuration).
 */
export interface NotCompared {
  path: string;
  reason: 'build-output' | 'project-file';
}

/** The comparison of a tree with the sources of a bundle's maps. */
export interface SourceTreeComparison {
  sources: SourceRow[];
  not_in_bundle: string[];
  not_compared: NotCompared[];
  truncated: boolean;
}

/** The project's own files: manifests, lockfiles, compiler and tool configuration. */
const PROJECT_FILE =
  /^(?:package\.json|package-lock\.json|npm-shrinkwrap\.json|[jt]sconfig(?:\.[\w.-]+)?\.json|[\w.-]+\.config\.[cm]?[jt]s)$/i;
/** The comment a compiler or bundler appends to a script it emitted with a source map. */
const MAP_COMMENT = /\/[/*][#@]\s*sourceMappingURL=\S+\s*(?:\*\/\s*)?$/;
/** How much of a script's end is searched for {@link MAP_COMMENT}. */
const MAP_COMMENT_TAIL = 4096;

/**
 * Why the tree file `path` (its bytes `bytes`) is no source module ({@link NotCompared}), or null when
 * it is one; `outputs` holds the SHA-256 of every file of the analyzed application.
 */
function notSource(path: string, bytes: Buffer, outputs: ReadonlySet<string>): NotCompared['reason'] | null {
  if (PROJECT_FILE.test(path.slice(path.lastIndexOf('/') + 1))) return 'project-file';
  if (outputs.has(createHash('sha256').update(bytes).digest('hex'))) return 'build-output';
  const tail = bytes.subarray(Math.max(0, bytes.length - MAP_COMMENT_TAIL)).toString('utf8');
  return /\.[cm]?js$/i.test(path) && MAP_COMMENT.test(tail) ? 'build-output' : null;
}

/** The source name without URL scheme, bundler namespace, query, and leading `./` or `../` parts. */
export function normalizeSource(source: string): string[] {
  const bare = source
    .replace(/^[a-z][\w+.-]*:\/\/[^/]*\//i, '')
    .replace(/[?#].*$/, '')
    .split('/')
    .filter((part) => part !== '' && part !== '.' && part !== '..');
  return bare;
}

/**
 * The source files under `root`, in order; a folder that vanishes or cannot be read while the tree is
 * walked (a live tree such as /proc, a folder the user may not enter) is skipped and named in `skipped`
 * with why.
 */
async function treeFiles(
  root: string,
  signal: AbortSignal | undefined,
  skipped: string[],
): Promise<{ files: string[]; cut: boolean }> {
  const files: string[] = [];
  const stack = [''];
  while (stack.length > 0) {
    throwIfAborted(signal, 'reading the source tree');
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(join(root, dir), { withFileTypes: true });
    } catch (error) {
      skipped.push(`${dir === '' ? '.' : dir} (${String((error as { code?: unknown }).code ?? 'unreadable')})`);
      continue;
    }
    for (const entry of entries) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) stack.push(path);
      else if (entry.isFile() && SOURCE_FILE.test(entry.name)) {
        if (files.length >= MAX_TREE_FILES) return { files, cut: true };
        files.push(path);
      }
    }
  }
  return { files: files.sort(), cut: false };
}

/** The file under `root` (real path `real`) that the longest suffix of `parts` names, or null. */
async function locate(root: string, real: string, parts: string[]): Promise<string | null> {
  for (let i = 0; i < parts.length; i += 1) {
    const candidate = join(root, ...parts.slice(i));
    const info = await lstat(candidate).catch(() => null);
    if (info === null || !info.isFile()) continue;
    // A symbolic link inside the tree may point anywhere: only files really under the root count.
    const resolved = await realpath(candidate);
    if (resolved === real || !resolved.startsWith(real + sep)) continue;
    return relative(root, candidate).split(sep).join('/');
  }
  return null;
}

/**
 * Compares the directory `root` with the source modules of `app`. Folders and files that vanish or
 * cannot be read meanwhile are left out, each named in `skipped` with why.
 */
export async function compareSourceTree(
  app: JavascriptApplication,
  root: string,
  signal?: AbortSignal,
  skipped: string[] = [],
): Promise<SourceTreeComparison> {
  const real = await realpath(root);
  const rows: SourceRow[] = [];
  const named = new Set<string>();
  for (const module of app.source_modules.slice(0, MAX_SOURCE_ROWS)) {
    throwIfAborted(signal, 'comparing sources');
    let path = await locate(root, real, normalizeSource(module.source)).catch(() => null);
    let status: SourceRow['status'] = 'missing';
    const bytes = path === null ? null : await readFile(join(root, path)).catch((error: unknown) => error as Error);
    if (bytes instanceof Error) {
      skipped.push(`${path} (${String((bytes as { code?: unknown }).code ?? 'unreadable')})`);
      path = null;
    } else if (path !== null && bytes !== null) {
      named.add(path);
      const sha = createHash('sha256').update(bytes).digest('hex');
      status =
        module.content_sha256 === null ? 'unverifiable' : sha === module.content_sha256 ? 'identical' : 'differs';
    }
    rows.push({ node_id: module.node_id, source: module.source, status, path });
  }
  const tree = await treeFiles(root, signal, skipped);
  const outputs = new Set(app.assets.map((a) => a.sha256).filter((sha): sha is string => sha !== null));
  const extra: string[] = [];
  const notCompared: NotCompared[] = [];
  for (const path of tree.files) {
    if (named.has(path)) continue;
    throwIfAborted(signal, 'reading the source tree');
    const bytes = await readFile(join(root, path)).catch((error: unknown) => error as Error);
    if (bytes instanceof Error) {
      skipped.push(`${path} (${String((bytes as { code?: unknown }).code ?? 'unreadable')})`);
      continue;
    }
    const reason = notSource(path, bytes, outputs);
    if (reason === null) extra.push(path);
    else notCompared.push({ path, reason });
  }
  return {
    sources: rows,
    not_in_bundle: extra.slice(0, MAX_SOURCE_ROWS),
    not_compared: notCompared.slice(0, MAX_SOURCE_ROWS),
    truncated:
      tree.cut ||
      app.source_modules.length > MAX_SOURCE_ROWS ||
      extra.length > MAX_SOURCE_ROWS ||
      notCompared.length > MAX_SOURCE_ROWS,
  };
}

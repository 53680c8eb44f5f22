// A source tree against a bundle's source maps: each source the maps name is found in the tree by
// the longest suffix of its name (bundler prefixes such as webpack://app/ and leading ../ removed) and
// compared with the map's sourcesContent by SHA-256; files of the tree that no map names are listed.
import { createHash } from 'node:crypto';
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

/** The comparison of a tree with the sources of a bundle's maps. */
export interface SourceTreeComparison {
  sources: SourceRow[];
  not_in_bundle: string[];
  truncated: boolean;
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

async function treeFiles(root: string, signal: AbortSignal | undefined): Promise<{ files: string[]; cut: boolean }> {
  const files: string[] = [];
  const stack = [''];
  while (stack.length > 0) {
    throwIfAborted(signal, 'reading the source tree');
    const dir = stack.pop()!;
    for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
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

/** Compares the directory `root` with the source modules of `app`. */
export async function compareSourceTree(
  app: JavascriptApplication,
  root: string,
  signal?: AbortSignal,
): Promise<SourceTreeComparison> {
  const real = await realpath(root);
  const rows: SourceRow[] = [];
  const named = new Set<string>();
  for (const module of app.source_modules.slice(0, MAX_SOURCE_ROWS)) {
    throwIfAborted(signal, 'comparing sources');
    const path = await locate(root, real, normalizeSource(module.source));
    let status: SourceRow['status'] = 'missing';
    if (path !== null) {
      named.add(path);
      const sha = createHash('sha256')
        .update(await readFile(join(root, path)))
        .digest('hex');
      status =
        module.content_sha256 === null ? 'unverifiable' : sha === module.content_sha256 ? 'identical' : 'differs';
    }
    rows.push({ node_id: module.node_id, source: module.source, status, path });
  }
  const tree = await treeFiles(root, signal);
  const extra = tree.files.filter((f) => !named.has(f));
  return {
    sources: rows,
    not_in_bundle: extra.slice(0, MAX_SOURCE_ROWS),
    truncated: tree.cut || app.source_modules.length > MAX_SOURCE_ROWS || extra.length > MAX_SOURCE_ROWS,
  };
}

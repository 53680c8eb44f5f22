import { posix } from 'node:path';
import type { UnsafePathProblem } from './errors.js';

/** Normalises an archive name to a logical path: backslashes become "/", one trailing "/" is dropped. */
export function logicalPath(name: string): string {
  const slashed = name.replace(/\\/g, '/');
  return slashed.length > 1 && slashed.endsWith('/') ? slashed.slice(0, -1) : slashed;
}

/** Why `path` (a logical path) could not be materialised under a directory, or null when it can. */
export function pathProblem(path: string): UnsafePathProblem | null {
  if (path.includes('\0')) return 'nul-byte';
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path) || path.startsWith('//')) return 'absolute-path';
  if (/(?:^|\/)\.\.(?:\/|$)/.test(path)) return 'parent-segment';
  return null;
}

/**
 * Why an entry name read from one container (not yet prefixed with its container's logical path)
 * cannot stand as a logical path, or null: a {@link pathProblem}, or a `!/` inside it
 * (`nested-separator`), which would make it read as an entry of a nested container.
 */
export function entryNameProblem(name: string): UnsafePathProblem | null {
  return pathProblem(name) ?? (name.includes('!/') ? 'nested-separator' : null);
}

/** True when a symlink at `linkPath` with `target` resolves outside the container root. */
export function symlinkEscapes(linkPath: string, target: string): boolean {
  if (target.includes('\0') || target.startsWith('/') || /^[a-zA-Z]:/.test(target)) return true;
  const resolved = posix.normalize(posix.join(posix.dirname(linkPath), target.replace(/\\/g, '/')));
  return resolved === '..' || resolved.startsWith('../') || resolved.startsWith('/');
}

/** Joins a nested container's logical path and an inner path: `outer!/inner`. */
export function nestedPath(prefix: string, inner: string): string {
  return prefix === '' ? inner : `${prefix}!/${inner}`;
}

/** Most symlinks followed to resolve one link inside a container (Linux allows as many). */
export const MAX_LINK_HOPS = 40;

/** A symlink of one container: its path inside it, its target, and whether that is read from the root (ASAR). */
export interface ContainedLink {
  path: string;
  target: string;
  fromRoot: boolean;
}

/**
 * The symlinks of one container that do not point outside it themselves but reach outside through
 * other symlinks of the container (`a → b`, `b → /etc`), each with the link whose target leaves
 * (`via`). Chains are resolved a path component at a time, as a file system would, up to
 * {@link MAX_LINK_HOPS} links: a loop or a longer chain ends unresolved, not outside.
 */
export function outwardThroughLinks(links: readonly ContainedLink[]): Array<{ path: string; via: string }> {
  const byPath = new Map(links.map((link) => [link.path, link]));
  const found: Array<{ path: string; via: string }> = [];
  for (const link of links) {
    if (symlinkEscapes(link.fromRoot ? '' : link.path, link.target)) continue;
    const via = leavesThrough(link, byPath);
    if (via !== null) found.push({ path: link.path, via });
  }
  return found;
}

/** The link through which resolving `start` leaves its container, or null when it stays inside. */
function leavesThrough(start: ContainedLink, byPath: ReadonlyMap<string, ContainedLink>): string | null {
  let resolved: string[] = [];
  let pending: string[] = [];
  let via = start;
  /** Continues at `link`'s target, `dir` being the folder that holds the link; true when the target is absolute. */
  const enter = (link: ContainedLink, dir: string[]): boolean => {
    const target = link.target.replace(/\\/g, '/');
    if (target.includes('\0') || target.startsWith('/') || /^[a-zA-Z]:/.test(target)) return true;
    resolved = link.fromRoot ? [] : dir;
    pending = [...target.split('/'), ...pending];
    via = link;
    return false;
  };
  if (enter(start, logicalPath(start.path).split('/').slice(0, -1))) return start.path;
  let hops = 1;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (resolved.length === 0) return via.path;
      resolved = resolved.slice(0, -1);
      continue;
    }
    const next = byPath.get([...resolved, part].join('/'));
    if (next === undefined) {
      resolved = [...resolved, part];
      continue;
    }
    if (++hops > MAX_LINK_HOPS) return null;
    if (enter(next, resolved)) return next.path;
  }
  return null;
}

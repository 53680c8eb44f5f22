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

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

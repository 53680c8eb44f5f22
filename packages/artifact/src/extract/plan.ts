import { ReaError } from '@rea/evidence';
import { unsafePath } from '../errors.js';
import { pathProblem, symlinkEscapes } from '../paths.js';

/** One entry as extraction sees it, whatever the container. */
export interface PlannedEntry<H> {
  path: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
  /** For symlinks: the target, already read. */
  linkTarget: string | null;
  /** True when the link target is relative to the archive root (ASAR) rather than the link's folder. */
  linkFromRoot: boolean;
  executable: boolean;
  handle: H;
}

/** Matches a logical path against the selection: equal to, or below, a selected path. */
export function selected(path: string, select: readonly string[] | undefined): boolean {
  if (select === undefined) return true;
  return select.some((s) => path === s || path.startsWith(`${s.replace(/\/$/, '')}/`));
}

/**
 * Judges every selected entry before anything is written: absolute paths, `..`, NUL bytes, device
 * files, outward symlinks and path conflicts are refused (`unsupported_target`, `details.reason:
 * "unsafe-path"`). A selection that matches nothing is `not_found`.
 */
export function plan<H>(entries: readonly PlannedEntry<H>[], select: readonly string[] | undefined): PlannedEntry<H>[] {
  const chosen = entries.filter((e) => selected(e.path, select));
  for (const s of select ?? []) {
    if (!chosen.some((e) => selected(e.path, [s]))) {
      throw new ReaError('not_found', `No entry matches the selected path ${JSON.stringify(s)}.`, {
        details: { path: s, reason: 'no-such-entry' },
      });
    }
  }
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const entry of chosen) {
    const problem = pathProblem(entry.path);
    if (problem !== null) throw unsafePath(entry.path, problem);
    if (entry.path === '' || entry.path.split('/').some((s) => s === '' || s === '.'))
      throw unsafePath(entry.path, 'path-conflict');
    if (entry.kind === 'other') throw unsafePath(entry.path, 'device-file');
    if (entry.kind === 'symlink' && entry.linkTarget !== null) {
      if (symlinkEscapes(entry.linkFromRoot ? '' : entry.path, entry.linkTarget))
        throw unsafePath(entry.path, 'outward-symlink');
    }
    if (entry.kind === 'file') {
      if (files.has(entry.path) || dirs.has(entry.path)) throw unsafePath(entry.path, 'path-conflict');
      files.add(entry.path);
    }
    const segments = entry.path.split('/');
    for (let i = 1; i < segments.length + (entry.kind === 'directory' ? 1 : 0); i += 1) {
      const parent = segments.slice(0, i).join('/');
      if (files.has(parent)) throw unsafePath(entry.path, 'path-conflict');
      dirs.add(parent);
    }
  }
  return chosen;
}

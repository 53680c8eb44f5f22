import { Buffer } from 'node:buffer';
import { ReaError } from '@rea/evidence';
import { unsafePath } from '../errors.js';
import { CHECK_EVERY, runCooperatively, runToCompletion } from '../layout/cooperative.js';
import type { Work } from '../layout/cooperative.js';
import { pathProblem, symlinkEscapes } from '../paths.js';
import { SELECT_AS_LISTED } from './selection.js';

/** One entry as extraction sees it, whatever the container. */
export interface PlannedEntry<H> {
  path: string;
  kind: 'file' | 'directory' | 'symlink' | 'other';
  /** For symlinks: the target, already read. */
  linkTarget: string | null;
  /** True when the link target is relative to the archive root (ASAR) rather than the link's folder. */
  linkFromRoot: boolean;
  executable: boolean;
  /** Bytes the container declares for the entry (its header may lie; writes are counted as well). */
  declaredSize: number;
  /** Compressed bytes of the entry, or null when it is stored without compression (ASAR). */
  compressedSize: number | null;
  handle: H;
}

/** Longest name component most file systems accept (NAME_MAX), in UTF-8 bytes. */
export const MAX_NAME_BYTES = 255;
/** Longest entry path extracted, in UTF-8 bytes: PATH_MAX (4096) less room for the output directory. */
export const MAX_PATH_BYTES = 3072;

/** Where two paths land on a case-insensitive (and normalization-insensitive) file system. */
function foldedKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

function checkLengths(path: string): void {
  for (const segment of path.split('/')) {
    const length = Buffer.byteLength(segment);
    if (length > MAX_NAME_BYTES) throw unsafePath(path, 'name-too-long', { limit: MAX_NAME_BYTES, observed: length });
  }
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_PATH_BYTES) throw unsafePath(path, 'path-too-long', { limit: MAX_PATH_BYTES, observed: bytes });
}

/** Matches a logical path against the selection: equal to, or below, a selected path. */
export function selected(path: string, select: readonly string[] | undefined): boolean {
  if (select === undefined) return true;
  return select.some((s) => path === s || path.startsWith(`${s.replace(/\/$/, '')}/`));
}

/**
 * Judges every selected entry before anything is written: absolute paths, `..`, NUL bytes, device
 * files, outward symlinks, path conflicts, a name component longer than {@link MAX_NAME_BYTES} or a
 * path longer than {@link MAX_PATH_BYTES} (`details.limit`, `details.observed`), and two entries
 * whose paths differ only in letter case or Unicode normalization (`case-collision`,
 * `details.other`: they would overwrite each other on a case-insensitive file system) are refused
 * (`unsupported_target`, `details.reason: "unsafe-path"`). A selection that matches nothing is
 * `not_found`.
 */
export function plan<H>(entries: readonly PlannedEntry<H>[], select: readonly string[] | undefined): PlannedEntry<H>[] {
  return runToCompletion(planWork(entries, select), undefined);
}

/**
 * {@link plan} without holding the event loop for a large archive: the same judgement, a slice at a
 * time, throwing `cancelled` when `signal` is aborted.
 */
export function planCooperatively<H>(
  entries: readonly PlannedEntry<H>[],
  select: readonly string[] | undefined,
  signal: AbortSignal | undefined,
): Promise<PlannedEntry<H>[]> {
  return runCooperatively(planWork(entries, select), signal);
}

/**
 * {@link selected} for many entries against one selection: a path is looked up with each of its
 * folder prefixes, so the cost grows with the entries, not with entries times selected paths. Records
 * which selected paths matched something.
 */
class Selection {
  /** Selected paths as written (a path equal to one is selected). */
  private readonly exact = new Map<string, string[]>();
  /** Selected paths less one trailing slash (a path below one is selected). */
  private readonly below = new Map<string, string[]>();
  /** Every folder prefix of a key of `below`: a path's prefix outside it has no selected path below it. */
  private readonly onTheWay = new Set<string>();
  readonly matched = new Set<string>();

  constructor(select: readonly string[]) {
    for (const s of select) {
      const add = (map: Map<string, string[]>, key: string): void => void map.set(key, [...(map.get(key) ?? []), s]);
      add(this.exact, s);
      const key = s.replace(/\/$/, '');
      add(this.below, key);
      for (let at = key.indexOf('/'); at >= 0; at = key.indexOf('/', at + 1)) this.onTheWay.add(key.slice(0, at));
    }
  }

  /** True when `path` is selected; notes every selected path it matches. */
  test(path: string): boolean {
    let hit = false;
    const note = (names: string[] | undefined): void => {
      if (names === undefined) return;
      hit = true;
      for (const name of names) this.matched.add(name);
    };
    note(this.exact.get(path));
    for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) {
      const prefix = path.slice(0, at);
      note(this.below.get(prefix));
      // No selected path lies below a longer prefix unless one lies below this one.
      if (!this.onTheWay.has(prefix)) break;
    }
    return hit;
  }
}

/** `not_found` for a selected path that matches no entry. */
export function noSuchEntry(path: string): ReaError {
  return new ReaError('not_found', `No entry matches the selected path ${JSON.stringify(path)}.`, {
    details: { path, reason: 'no-such-entry' },
    remediation: SELECT_AS_LISTED,
  });
}

/**
 * The items of a container whose paths `select` chooses (every item without a selection), a slice at
 * a time: only these are prepared (a link target read, an entry planned) and judged. The selected
 * paths that match nothing are left for {@link plan} to refuse.
 */
export function selectCooperatively<T>(
  items: readonly T[],
  pathOf: (item: T) => string,
  select: readonly string[] | undefined,
  signal: AbortSignal | undefined,
): Promise<T[]> {
  if (select === undefined) return Promise.resolve(items.slice());
  return runCooperatively(selectWork(items, pathOf, select), signal);
}

function* selectWork<T>(items: readonly T[], pathOf: (item: T) => string, select: readonly string[]): Work<T[]> {
  const selection = new Selection(select);
  const chosen: T[] = [];
  for (let at = 0; at < items.length; at += 1) {
    if (at % CHECK_EVERY === CHECK_EVERY - 1) yield;
    if (selection.test(pathOf(items[at]!))) chosen.push(items[at]!);
  }
  return chosen;
}

function* planWork<H>(
  entries: readonly PlannedEntry<H>[],
  select: readonly string[] | undefined,
): Work<PlannedEntry<H>[]> {
  let chosen: PlannedEntry<H>[] = entries.slice();
  if (select !== undefined) {
    const selection = new Selection(select);
    chosen = [];
    for (let at = 0; at < entries.length; at += 1) {
      if (at % CHECK_EVERY === CHECK_EVERY - 1) yield;
      if (selection.test(entries[at]!.path)) chosen.push(entries[at]!);
    }
    for (const s of select) {
      if (selection.matched.has(s)) continue;
      throw noSuchEntry(s);
    }
  }
  const files = new Set<string>();
  const dirs = new Set<string>();
  // Folded paths of files and of directories: a file must not meet another file or a directory there
  // (directories that differ only in case merge harmlessly).
  const foldedFiles = new Map<string, string>();
  const foldedDirs = new Map<string, string>();
  const claim = (path: string, by: string, isFile: boolean): void => {
    const key = foldedKey(path);
    const file = foldedFiles.get(key);
    if (file !== undefined && file !== path) throw unsafePath(by, 'case-collision', { other: file });
    if (!isFile) {
      foldedDirs.set(key, path);
      return;
    }
    const dir = foldedDirs.get(key);
    if (dir !== undefined) throw unsafePath(by, 'case-collision', { other: dir });
    foldedFiles.set(key, path);
  };
  for (let at = 0; at < chosen.length; at += 1) {
    if (at % CHECK_EVERY === CHECK_EVERY - 1) yield;
    const entry = chosen[at]!;
    const problem = pathProblem(entry.path);
    if (problem !== null) throw unsafePath(entry.path, problem);
    checkLengths(entry.path);
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
      claim(entry.path, entry.path, true);
    }
    const segments = entry.path.split('/');
    for (let i = 1; i < segments.length + (entry.kind === 'directory' ? 1 : 0); i += 1) {
      const parent = segments.slice(0, i).join('/');
      if (files.has(parent)) throw unsafePath(entry.path, 'path-conflict');
      if (!dirs.has(parent)) claim(parent, entry.path, false);
      dirs.add(parent);
    }
  }
  return chosen;
}

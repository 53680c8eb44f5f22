import { Buffer } from 'node:buffer';
import { ReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';

/** `unsupported_target` for a container whose structure cannot be read safely. */
export function malformed(format: string, problem: string, extra: Record<string, string | number> = {}): ReaError {
  return new ReaError('unsupported_target', `The ${format} container is malformed: ${problem}.`, {
    details: { format, reason: 'malformed', problem, ...extra },
    remediation: 'Obtain an intact copy of the artifact; the bytes as given cannot be read safely.',
  });
}

/** Why an entry path cannot be materialised under an extraction directory. */
export type UnsafePathProblem =
  | 'absolute-path'
  | 'parent-segment'
  | 'nul-byte'
  | 'device-file'
  | 'outward-symlink'
  | 'path-conflict'
  | 'name-too-long'
  | 'path-too-long'
  | 'case-collision'
  | 'nested-separator';

/** Longest entry path echoed in a refusal; longer ones are cut (`details.path_bytes` gives the size). */
const ECHOED_PATH = 512;

/**
 * `unsupported_target` (`details.reason: "unsafe-path"`) naming the entry (cut to 512 characters,
 * with `details.path_bytes`, when longer) and the problem; `extra` adds what the problem is about:
 * `limit` and `observed` for names too long, `other` (the entry it collides with) for a case collision.
 */
export function unsafePath(path: string, problem: UnsafePathProblem, extra: JsonObject = {}): ReaError {
  const shown = path.length > ECHOED_PATH ? `${path.slice(0, ECHOED_PATH)}…` : path;
  const long = path.length > ECHOED_PATH ? { path_bytes: Buffer.byteLength(path) } : {};
  return new ReaError('unsupported_target', `Refusing entry ${JSON.stringify(shown)}: ${problem.replace(/-/g, ' ')}.`, {
    details: { reason: 'unsafe-path', path: shown, problem, ...long, ...extra },
    remediation:
      problem === 'case-collision'
        ? 'Two entries differ only in letter case and would overwrite each other on a case-insensitive file system; extract one of them with select.'
        : problem === 'nested-separator'
          ? 'The entry name holds "!/", which separates a nested container from its entries in logical paths: it would stand where a nested entry belongs. Extract other entries with select.'
          : 'Nothing was written outside the extraction directory; extract other entries with select.',
  });
}

/** `target_unavailable` for an unreadable input path. */
export function unreadable(path: string, reason: string): ReaError {
  return new ReaError('target_unavailable', `Cannot read ${path}: ${reason}.`, { details: { path, reason } });
}

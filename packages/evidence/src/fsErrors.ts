import { ReaError, UNREADABLE_ERRNOS, UNREADABLE_REMEDIATION, isReaError } from './reaError.js';

/**
 * `target_unavailable` for a path that the system would not follow to its end (ELOOP): a symbolic link
 * that leads back to itself, or through more links than the system follows.
 */
export function symlinkLoop(path: string): ReaError {
  return new ReaError(
    'target_unavailable',
    `${path} is a symbolic link that leads back to itself or through too many links (ELOOP).`,
    {
      details: { path, reason: 'ELOOP' },
      remediation: 'Pass the file the links were meant to point to (ls -l shows where each link points).',
    },
  );
}

/**
 * Errno codes that say the machine ran short of something (descriptors, memory, space), not that the
 * path is at fault: worth retrying, REA's side of the line.
 */
const EXHAUSTED: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'ENOSPC', 'EDQUOT']);

/**
 * Maps a file-system failure on `path` to a ReaError, as every tool and command that takes a path
 * answers it. `action` says what was being done, in words that follow "Cannot" ("read", "open the
 * bundle", "write the bundle", "create the extraction folder in"); an action that writes or creates
 * starts with "write" or "create".
 * - permission refused (EACCES, EPERM, EROFS): `access_denied`, `details.reason` the errno code;
 * - nothing there (ENOENT, or a part of the path is a file: ENOTDIR): `not_found`, `details.reason`
 *   "missing" and `details.errno`;
 * - a loop of symbolic links (ELOOP): `target_unavailable` (see {@link symlinkLoop});
 * - any other failure to read what the user named (EIO from a failing disk or /proc, EISDIR, EINVAL):
 *   `target_unavailable`, `details.reason` the errno code;
 * - a failed write, or a machine short of descriptors, memory or space: `execution_failure`.
 */
export function fileSystemError(error: unknown, path: string, action: string): ReaError {
  if (isReaError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const errno = typeof code === 'string' ? code : 'unknown';
  const writing = action.startsWith('write') || action.startsWith('create');
  if (errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS') {
    return new ReaError('access_denied', `Cannot ${action} ${path}: permission denied.`, {
      details: { path, reason: errno },
      remediation: writing
        ? 'Choose a folder this user may write to.'
        : 'Make it readable by this user (and each folder on its path searchable), or copy it somewhere readable.',
      cause: error,
    });
  }
  if (errno === 'ENOENT' || errno === 'ENOTDIR') {
    return new ReaError('not_found', `Cannot ${action} ${path}: no such file or directory.`, {
      details: { reason: 'missing', path, errno },
      remediation: 'Check the path: nothing is there (or a part of it is a file, not a folder).',
      cause: error,
    });
  }
  if (errno === 'ELOOP') return symlinkLoop(path);
  if (!writing && !EXHAUSTED.has(errno)) {
    // The file, not REA (EIO from /proc/self/mem, a failing disk, a folder where a file was needed):
    // not worth retrying.
    return new ReaError('target_unavailable', `Cannot ${action} ${path} (${errno}).`, {
      details: { path, reason: errno },
      remediation: UNREADABLE_ERRNOS.has(errno)
        ? UNREADABLE_REMEDIATION
        : 'Pass the path of a regular file that can be read to its end.',
      cause: error,
    });
  }
  return new ReaError('execution_failure', `Cannot ${action} ${path} (${errno}).`, {
    details: { path, errno, reason: error instanceof Error ? error.message : String(error) },
    cause: error,
  });
}

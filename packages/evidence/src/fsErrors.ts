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
 * Maps a file-system failure on `path` to a ReaError: permissions are `access_denied`, a missing file
 * or folder is `not_found`, a read that fails on the file itself (EIO and its kin, an `action` that is
 * not a write) `target_unavailable`, anything else `execution_failure`; the errno code is kept in details.
 */
export function fileSystemError(error: unknown, path: string, action: string): ReaError {
  if (isReaError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const errno = typeof code === 'string' ? code : 'unknown';
  if (errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS') {
    return new ReaError('access_denied', `Cannot ${action} ${path}: permission denied.`, {
      details: { path, reason: errno },
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
  if (!action.startsWith('write') && UNREADABLE_ERRNOS.has(errno)) {
    // A read that fails (EIO from /proc/self/mem, a failing disk): the file, not REA, and not worth retrying.
    return new ReaError('target_unavailable', `Cannot ${action} ${path} (${errno}).`, {
      details: { path, reason: errno },
      remediation: UNREADABLE_REMEDIATION,
      cause: error,
    });
  }
  return new ReaError('execution_failure', `Cannot ${action} ${path} (${errno}).`, {
    details: { path, errno, reason: error instanceof Error ? error.message : String(error) },
    cause: error,
  });
}

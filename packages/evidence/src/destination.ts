import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileSystemError } from './fsErrors.js';
import { ReaError } from './reaError.js';

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // Nothing there (or a part of the path is a file): the folder is judged where the file is made.
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw fileSystemError(error, path, 'read');
  }
}

/**
 * Where a complete output file (a bundle, an image) is renamed into place for the destination a user
 * named: the absolute path itself, or, for a symbolic link, the file the link leads to (the link stays a
 * link). A rename replaces whatever holds the name, so anything there but a regular file is refused with
 * `invalid_request` before a byte is written: a folder (`details.reason` "destination-is-directory"), or
 * a device, FIFO or socket ("destination-not-a-file"; as root, `/dev/null` would otherwise become a
 * file), or a link that leads to none of these ("destination-unresolved", as `/dev/stdout` does on a
 * pipe). `what` names the output in messages ("The bundle destination"); `example` is a file name to
 * suggest inside a folder.
 */
export function replaceableDestination(destination: string, what: string, example: string): string {
  const path = resolve(destination);
  let target = path;
  let info = lstatOrNull(path);
  if (info?.isSymbolicLink()) {
    try {
      target = realpathSync(path);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw fileSystemError(error, path, 'follow the link');
      // A link to a file not made yet: the file is made where it points.
      target = resolve(dirname(path), readlinkSync(path));
    }
    info = lstatOrNull(target);
    if (info?.isSymbolicLink()) {
      throw new ReaError(
        'invalid_request',
        `${what} ${path} is a symbolic link to ${target}, which leads to no file that can be written.`,
        {
          details: { reason: 'destination-unresolved', path, target },
          remediation: 'Name a regular file to write: a new one, or an earlier output to replace.',
        },
      );
    }
  }
  if (info === null) return target;
  if (info.isDirectory()) {
    throw new ReaError('invalid_request', `${what} ${path} is a directory.`, {
      details: { reason: 'destination-is-directory', path },
      remediation: `Name the file to write, e.g. ${join(target, example)}.`,
    });
  }
  if (!info.isFile()) {
    throw new ReaError(
      'invalid_request',
      `${what} ${path} is not a regular file (a device, FIFO or socket): writing the output would replace it.`,
      {
        details: { reason: 'destination-not-a-file', path, format: 'special' },
        remediation: 'Name a regular file to write: a new one, or an earlier output to replace.',
      },
    );
  }
  return target;
}

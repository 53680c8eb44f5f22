import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ReaError } from '@rea/evidence';
import { decodePng, encodePng } from '../engine/png.js';
import type { RgbaImage } from '../engine/png.js';

function fileError(error: unknown, path: string, action: string): ReaError {
  const errno = String((error as { code?: unknown } | null)?.code ?? 'unknown');
  if (errno === 'ENOENT' || errno === 'ENOTDIR') {
    return new ReaError('not_found', `Cannot ${action} ${path}: no such file or directory.`, {
      details: { reason: 'missing', path, errno },
      remediation: 'Check the path; capture_web_screenshot reports where it wrote each PNG.',
    });
  }
  if (errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS') {
    return new ReaError('access_denied', `Cannot ${action} ${path}: permission denied.`, {
      details: { reason: errno, path },
    });
  }
  return new ReaError('execution_failure', `Cannot ${action} ${path} (${errno}).`, { details: { path, errno } });
}

/** Reads and decodes the PNG at `path`: `not_found` when absent, `unsupported_target` when not a valid PNG. */
export function readPng(path: string, field: string): RgbaImage {
  let bytes: Buffer;
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    throw fileError(error, path, `read ${field}`);
  }
  if (!isFile) {
    // A folder, FIFO, socket or device: reading a FIFO would wait for a writer.
    throw new ReaError('unsupported_target', `${field} (${path}) is not a regular file.`, {
      details: { reason: 'not-a-file', format: 'special', path, field },
      remediation: 'Pass a PNG file, such as one capture_web_screenshot wrote.',
    });
  }
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw fileError(error, path, `read ${field}`);
  }
  try {
    return decodePng(bytes);
  } catch (error) {
    throw new ReaError('unsupported_target', `${field} (${path}) is not a valid PNG: ${(error as Error).message}.`, {
      details: { reason: 'not-png', format: 'png', path, field },
      remediation: 'Pass a complete PNG file, such as one capture_web_screenshot wrote.',
    });
  }
}

/**
 * Writes `image` as PNG to `path`, complete or not at all (a sibling temporary file renamed into
 * place); without a path, to `diff.png` in a fresh `rea-browser-diff-` directory.
 */
export function writePng(image: RgbaImage, path: string | null): { path: string; directory: string | null } {
  const bytes = encodePng(image);
  if (path === null) {
    const directory = mkdtempSync(join(tmpdir(), 'rea-browser-diff-'));
    writeFileSync(join(directory, 'diff.png'), bytes);
    return { path: join(directory, 'diff.png'), directory };
  }
  const target = resolve(path);
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  try {
    writeFileSync(temporary, bytes, { flag: 'wx' });
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw fileError(error, target, 'write the diff image to');
  }
  return { path: target, directory: null };
}

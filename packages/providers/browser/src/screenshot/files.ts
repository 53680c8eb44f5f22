import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ReaError, fileSystemError, replaceableDestination } from '@rea/evidence';
import { decodePng, encodePng } from '../engine/png.js';
import type { RgbaImage } from '../engine/png.js';
import { hasPngSignature, pngStructureProblem } from './pngStructure.js';
import type { PngProblem } from './pngStructure.js';

/** A file-system failure as every tool answers it (fileSystemError), a missing PNG with where PNGs come from. */
function fileError(error: unknown, path: string, action: string): ReaError {
  const mapped = fileSystemError(error, path, action);
  if (mapped.code !== 'not_found') return mapped;
  return new ReaError('not_found', mapped.message, {
    details: mapped.details,
    remediation: 'Check the path; capture_web_screenshot reports where it wrote each PNG.',
    cause: error,
  });
}

/**
 * The most pixels (width × height) a compared PNG may have: decoding one takes 4 bytes a pixel, and the
 * comparison holds both images and the diff (40 Mpx is about 480 MiB in all).
 */
export const MAX_PNG_PIXELS = 40_000_000;

/**
 * Refuses, before it is decoded, a PNG whose header declares more than {@link MAX_PNG_PIXELS} pixels:
 * `resource_constraint` (`details.resource: "memory"`, `limit` and `observed` in pixels, the size).
 * Bytes without a PNG header are left to the decoder.
 */
function checkPixels(bytes: Buffer, path: string, field: string): void {
  if (bytes.length < 24 || !hasPngSignature(bytes) || bytes.toString('latin1', 12, 16) !== 'IHDR') return;
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width * height <= MAX_PNG_PIXELS) return;
  throw new ReaError(
    'resource_constraint',
    `${field} (${path}) is ${width}x${height}: more than the ${MAX_PNG_PIXELS} pixels a compared PNG may have.`,
    {
      details: {
        resource: 'memory',
        unit: 'pixels',
        limit: MAX_PNG_PIXELS,
        observed: width * height,
        width,
        height,
        path,
        field,
      },
      remediation: 'Compare smaller images: capture a viewport or an element rather than a whole page, or crop both.',
    },
  );
}

/**
 * Refuses a `diff_path` that names a directory (`invalid_request`), before anything is decoded; any
 * other path is left to {@link writePng}.
 */
export function checkDiffPath(path: string): void {
  let directory = false;
  try {
    directory = statSync(path).isDirectory();
  } catch {
    // absent (it will be created) or unreadable (reported when written)
  }
  if (directory || path.endsWith('/'))
    throw new ReaError('invalid_request', `diff_path (${path}) names a directory; it must name a file.`, {
      details: { reason: 'diff-path-not-a-file', path },
      remediation: 'Pass a file path such as /tmp/diff.png, or leave diff_path out for a fresh directory.',
    });
}

/**
 * Reads and decodes the PNG at `path`: `not_found` when absent, `resource_constraint` when its header
 * declares more than {@link MAX_PNG_PIXELS} pixels, `unsupported_target` when not a valid PNG (the
 * message says what is wrong in plain words; `details.problem` names it, `details.decoder` keeps the
 * decoder's own wording when it was the decoder that failed).
 */
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
  checkPixels(bytes, path, field);
  // The structure is judged here, in plain words; what only the decoder finds is said plainly too,
  // with its own wording kept in details.
  const structural = pngStructureProblem(bytes);
  if (structural !== null) throw notPng(path, field, structural, null);
  try {
    return decodePng(bytes);
  } catch (error) {
    const problem = { problem: 'undecodable', says: 'cannot be decoded as an image' };
    throw notPng(path, field, problem, error instanceof Error ? error.message : String(error));
  }
}

function notPng(path: string, field: string, problem: PngProblem, decoder: string | null): ReaError {
  return new ReaError('unsupported_target', `${field} (${path}) is not a valid PNG: the file ${problem.says}.`, {
    details: {
      reason: 'not-png',
      format: 'png',
      path,
      field,
      problem: problem.problem,
      ...(decoder === null ? {} : { decoder }),
    },
    remediation: 'Pass a complete PNG file, such as one capture_web_screenshot wrote.',
  });
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
  // A folder, device or FIFO there is refused; a link is written through (see replaceableDestination).
  const target = replaceableDestination(path, 'The diff image destination', 'diff.png');
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

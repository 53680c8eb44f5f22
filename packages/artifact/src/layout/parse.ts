import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isReaError, throwIfAborted } from '@rea/evidence';
import { SMALL_FILE_BYTES, readSmallFileSync } from '@rea/provider-kit';
import { runCooperatively, runToCompletion } from './cooperative.js';
import type { Work } from './cooperative.js';
import { parseElf } from './elf.js';
import { parseMachO } from './macho.js';
import { parseFatMachO } from './machoFat.js';
import { parsePe } from './pe.js';
import { LazyFile } from './lazyFile.js';
import { memorySource } from './source.js';
import type { ByteSource } from './source.js';
import { malformed } from './reader.js';
import type { BinaryFormat, BinaryLayout, ParseBinaryLayoutOptions } from './types.js';

/** The container format named by the first bytes, or null. */
export function detectBinaryFormat(bytes: Uint8Array): BinaryFormat | null {
  if (bytes.length < 4) return null;
  const [a, b, c, d] = [bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!];
  if (a === 0x7f && b === 0x45 && c === 0x4c && d === 0x46) return 'elf';
  if (a === 0x4d && b === 0x5a) return 'pe';
  const magic = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  if (magic === 0xfeedface || magic === 0xfeedfacf || magic === 0xcefaedfe || magic === 0xcffaedfe) return 'macho';
  // 0xcafebabe is shared with Java class files; a fat header has a small architecture count.
  if ((magic === 0xcafebabe || magic === 0xcafebabf) && bytes.length >= 8) {
    const count = ((bytes[4]! << 24) | (bytes[5]! << 16) | (bytes[6]! << 8) | bytes[7]!) >>> 0;
    if (count > 0 && count < 32) return 'macho-fat';
  }
  return null;
}

/**
 * Parses the layout of an ELF, PE/PE32+ or Mach-O (thin or fat) file held in memory.
 *
 * Errors (all `ReaError`):
 * - `unsupported_target` with `details.reason: "unknown-format"` when the bytes are none of these;
 * - `unsupported_target` with `details.reason` `"truncated"` (a header or table runs past the end of
 *   the file), `"malformed"` (a header contradicts itself: impossible sizes, counts or indices) or
 *   `"value-out-of-range"` (an address or size above Number.MAX_SAFE_INTEGER); `details.format` names
 *   the format that was recognised;
 * - `cancelled` when `options.signal` is aborted between phases.
 *
 * An unrecognised machine is not an error: it is reported as `architecture: "unknown"` with the raw
 * `machine` name, because layout does not depend on the instruction set.
 */
export function parseBinaryLayout(bytes: Uint8Array, options: ParseBinaryLayoutOptions = {}): BinaryLayout {
  return runToCompletion(parseLayout(memorySource(bytes)), options.signal);
}

/**
 * {@link parseBinaryLayout} without holding the event loop: the work runs in slices of about ten
 * milliseconds with a turn of the event loop between them (and at every phase), and `options.signal`
 * is checked at each turn, so a cancel takes effect within a slice (`cancelled`, with
 * `details.phase`). Same result and errors.
 */
export async function parseBinaryLayoutAsync(
  bytes: Uint8Array,
  options: ParseBinaryLayoutOptions = {},
): Promise<BinaryLayout> {
  return await runCooperatively(parseLayout(memorySource(bytes)), options.signal);
}

/**
 * Parses the layout of the file at `path`, reading only the headers and tables it needs (a layout of
 * a 100 MB library reads a few megabytes); `readAt` reads further bytes from the file on demand and
 * keeps the 64 KiB chunks it read for later calls (so a consumer that reads all of `.text` ends up
 * holding `.text`).
 * Errors as {@link parseBinaryLayout}, plus the file system's own (ENOENT, EACCES) as thrown by
 * `node:fs` — callers map them.
 */
export function parseBinaryLayoutFile(path: string, options: ParseBinaryLayoutOptions = {}): BinaryLayout {
  const file = LazyFile.open(path);
  try {
    return runToCompletion(parseLayout(file), options.signal);
  } finally {
    file.close();
  }
}

/**
 * {@link parseBinaryLayoutFile} without holding the event loop: the work runs in slices of about ten
 * milliseconds with a turn of the event loop between them (and at every phase), and `options.signal`
 * is checked at each turn, so a cancel takes effect within a slice (`cancelled`, with
 * `details.phase`). Same result and errors.
 */
export async function parseBinaryLayoutFileAsync(
  path: string,
  options: ParseBinaryLayoutOptions = {},
): Promise<BinaryLayout> {
  const file = LazyFile.open(path);
  try {
    return await runCooperatively(parseLayout(file), options.signal);
  } finally {
    file.close();
  }
}

/** The device and inode of the regular file at `path` (which file it is, not what it holds), or null. */
function fileOf(path: string): string | null {
  try {
    const status = statSync(path, { bigint: true });
    return status.isFile() ? `${status.dev}:${status.ino}` : null;
  } catch {
    return null;
  }
}

/** The buffer a file is compared through (see holdsExactly), made on first use. */
let compareChunk: Buffer | undefined;

/**
 * True when the regular file at `path` holds exactly `held` now: read again through one reused buffer
 * and compared as it is read (no file-sized allocation), from a descriptor opened without waiting. Any
 * error, a size that differs or a read that would wait is false.
 */
function holdsExactly(path: string, held: Uint8Array): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return false;
  }
  try {
    const status = fstatSync(descriptor);
    if (!status.isFile() || status.size !== held.length) return false;
    const buffer = (compareChunk ??= Buffer.allocUnsafeSlow(256 << 10));
    for (let at = 0; ;) {
      const count = readSync(descriptor, buffer, 0, buffer.length, at);
      if (count === 0) return at === held.length;
      if (at + count > held.length || !buffer.subarray(0, count).equals(held.subarray(at, at + count))) return false;
      at += count;
    }
  } catch {
    return false;
  } finally {
    closeSync(descriptor);
  }
}

/** The bytes each layout {@link parseWholeBinaryFileAsync} kept was parsed from, for as long as the layout lives. */
const sources = new WeakMap<BinaryLayout, Uint8Array>();
/** The layout {@link parseWholeBinaryFileAsync} kept last, held weakly, and the file (device, inode) it read. */
let recent: { file: string; layout: WeakRef<BinaryLayout> } | null = null;

/**
 * Reads the whole file at `path` and parses its layout from memory, as {@link parseBinaryLayoutAsync} does
 * (so `readAt` serves every mapped byte). A file up to 4 MiB is read at once with synchronous calls, a
 * larger one through a promise that `options.signal` cancels.
 *
 * The layout of a file up to 4 MiB is kept weakly, with the bytes it was parsed from. A later call for the
 * same file (device and inode) that finds it holding exactly those bytes (read again through a small
 * buffer and compared) answers with that layout, when no garbage collection has dropped it meanwhile:
 * `rea analyze` reads a program for `inspect_binary_layout` and again as the embedded engine opens it, and
 * parses it once. Taken again, the layout still comes after a turn of the event loop, and `cancelled` when
 * `options.signal` was aborted meanwhile. Nothing is kept beyond what the caller keeps alive.
 *
 * Errors of reading are thrown as `node:fs` gives them (for the caller to type); of parsing, as
 * {@link parseBinaryLayoutAsync}'s.
 */
export async function parseWholeBinaryFileAsync(
  path: string,
  options: ParseBinaryLayoutOptions = {},
): Promise<BinaryLayout> {
  const file = fileOf(path);
  const known = file !== null && recent?.file === file ? recent.layout.deref() : undefined;
  const held = known === undefined ? undefined : sources.get(known);
  if (known !== undefined && held !== undefined && holdsExactly(path, held)) {
    // A turn of the event loop and a look at the signal, as a parse gives at its first phase: a cancel
    // sent as the layout is asked for still ends the caller there.
    await nextTurn();
    throwIfAborted(options.signal, 'start');
    return known;
  }
  const bytes = readSmallFileSync(path, SMALL_FILE_BYTES) ?? (await readFile(path, { signal: options.signal }));
  const layout = await parseBinaryLayoutAsync(bytes, options);
  if (file !== null && bytes.length <= SMALL_FILE_BYTES) {
    sources.set(layout, bytes);
    recent = { file, layout: new WeakRef(layout) };
  }
  return layout;
}

function* parseLayout(source: ByteSource): Work<BinaryLayout> {
  yield 'start';
  const n = Math.min(8, source.length);
  const region = n > 0 ? source.region(0, n) : null;
  const format = detectBinaryFormat(
    region ? region.bytes.subarray(0 - region.base, n - region.base) : new Uint8Array(0),
  );
  try {
    switch (format) {
      case 'elf':
        return yield* parseElf(source);
      case 'pe':
        return yield* parsePe(source);
      case 'macho':
        return yield* parseMachO(source);
      case 'macho-fat':
        return yield* parseFatMachO(source);
      default:
        throw malformed(null, 'unknown-format', 'The file is not an ELF, PE or Mach-O binary.');
    }
  } catch (error) {
    if (isReaError(error)) throw error;
    // A defect in a parser must not escape as a bare exception on hostile input: report it typed.
    throw malformed(format, 'malformed', `The ${format ?? 'binary'} headers could not be parsed consistently.`, {
      cause: error instanceof Error ? error.message : String(error),
    });
  }
}

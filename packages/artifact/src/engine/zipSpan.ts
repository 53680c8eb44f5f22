// Where a ZIP lies in its file. An archive need not fill it: a self-extractor's stub or a script can
// sit in front (the archive's offsets then count from its own start) and data can follow its end
// record (a signature, a second payload). unzip reads both; so does REA, which says so.
import { closeSync, openSync, readSync } from 'node:fs';

/** Where an archive lies in its file: from `base` (bytes before it, else 0) to `end` (the end of its end record). */
export interface ArchiveSpan {
  base: number;
  end: number;
}

const END_SIGNATURE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const END_RECORD = 22;
/** The most bytes an end record and its comment take: the tail searched for it. */
export const END_SEARCH = END_RECORD + 0xffff;

/**
 * Where the archive lies in a file of `size` bytes whose last bytes are `tail`, as unzip finds it. Its
 * end record is the last one whose comment ends the file (the library's rule); without one, the last
 * one whose comment fits and whose directory checks, with bytes appended after it. Bytes before the
 * archive (a self-extractor's stub, a script put in front of it) move every offset its directory
 * gives: the difference between where the directory lies and where it says it lies is the archive's
 * start. `at(position, length)` reads the file. Null when no end record checks: the library's own
 * search then gives its error.
 */
export function locateArchive(
  tail: Buffer,
  size: number,
  at: (position: number, length: number) => Buffer | null,
): ArchiveSpan | null {
  const tailStart = size - tail.length;
  const candidates = (): number[] => {
    const found: number[] = [];
    if (tail.length < END_RECORD) return found;
    for (
      let i = tail.lastIndexOf(END_SIGNATURE, tail.length - END_RECORD);
      i >= 0;
      i = i > 0 ? tail.lastIndexOf(END_SIGNATURE, i - 1) : -1
    )
      found.push(i);
    return found;
  };
  const check = (i: number): ArchiveSpan | null => {
    const end = tailStart + i + END_RECORD + tail.readUInt16LE(i + 20);
    if (end > size) return null;
    const entries = tail.readUInt16LE(i + 10);
    const directorySize = tail.readUInt32LE(i + 12);
    const directoryOffset = tail.readUInt32LE(i + 16);
    // A zip64 archive's directory is placed by its zip64 records: read as the file's, never moved.
    if (entries === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) return { base: 0, end };
    const directoryStart = tailStart + i - directorySize;
    const base = directoryStart - directoryOffset;
    if (directoryStart < 0 || base < 0) return null;
    if (entries > 0 && at(directoryStart, 4)?.readUInt32LE(0) !== 0x02014b50) return null;
    return { base, end };
  };
  const all = candidates();
  // The library's end record: the last whose comment ends the file.
  const exact = all.find((i) => tailStart + i + END_RECORD + tail.readUInt16LE(i + 20) === size);
  if (exact !== undefined) return check(exact);
  for (const i of all) {
    const span = check(i);
    if (span !== null) return span;
  }
  return null;
}

/** True when the file at `path` (`size` bytes, ending in `tail`) holds a ZIP that {@link locateArchive} finds. */
export function fileHoldsZip(path: string, size: number, tail: Buffer): boolean {
  if (tail.length < END_RECORD || tail.lastIndexOf(END_SIGNATURE) < 0) return false;
  let fd: number | null = null;
  const at = (position: number, length: number): Buffer | null => {
    try {
      fd ??= openSync(path, 'r');
      const bytes = Buffer.alloc(length);
      return readSync(fd, bytes, 0, length, position) === length ? bytes : null;
    } catch {
      return null;
    }
  };
  try {
    return locateArchive(tail, size, at) !== null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

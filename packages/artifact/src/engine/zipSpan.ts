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
/** The fixed part of an end record (its comment follows). */
export const END_RECORD = 22;
/** The most bytes an end record and its comment take: the tail searched for it. */
export const END_SEARCH = END_RECORD + 0xffff;

const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const DIRECTORY_RECORD = 0x02014b50;

/**
 * Where the archive lies in a file of `size` bytes whose last bytes are `tail`, as unzip finds it, or
 * null when no end record checks (the library's own search then gives its error). An end record
 * checks when it is on disk 0 of 1, its comment fits in the file, and its directory starts with a
 * directory record where it lies. Bytes before the archive (a self-extractor's stub, a script put in
 * front of it) move every offset its directory gives: the difference between where the directory
 * lies and where it says it lies is the archive's start. Preferred, in order: the last end record
 * whose comment ends the file (the library's rule), when it checks and lists entries; the last one
 * that checks and lists entries, with bytes after it; an empty archive's record that ends the file.
 * A zip64 archive (a zip64 locator before its end record) is placed by its zip64 records and read
 * as the file's, never moved. `at(position, length)` reads the file.
 */
export function locateArchive(
  tail: Buffer,
  size: number,
  at: (position: number, length: number) => Buffer | null,
): ArchiveSpan | null {
  const tailStart = size - tail.length;
  const candidates: number[] = [];
  if (tail.length >= END_RECORD) {
    for (
      let i = tail.lastIndexOf(END_SIGNATURE, tail.length - END_RECORD);
      i >= 0;
      i = i > 0 ? tail.lastIndexOf(END_SIGNATURE, i - 1) : -1
    )
      candidates.push(i);
  }
  const endOf = (i: number): number => tailStart + i + END_RECORD + tail.readUInt16LE(i + 20);
  /** The span an end record gives, with its entry count; null when it does not check. */
  const check = (i: number): { span: ArchiveSpan; entries: number } | null => {
    const end = endOf(i);
    if (end > size) return null;
    // One disk: this disk 0, the directory's disk 0, as many entries on it as in all.
    if (tail.readUInt16LE(i + 4) !== 0 || tail.readUInt16LE(i + 6) !== 0) return null;
    const entries = tail.readUInt16LE(i + 10);
    if (tail.readUInt16LE(i + 8) !== entries) return null;
    const position = tailStart + i;
    const locator = position >= 20 ? at(position - 20, 4) : null;
    if (locator !== null && locator.readUInt32LE(0) === ZIP64_LOCATOR) return { span: { base: 0, end }, entries: -1 };
    const directorySize = tail.readUInt32LE(i + 12);
    const directoryOffset = tail.readUInt32LE(i + 16);
    if (entries === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) return null;
    const directoryStart = position - directorySize;
    const base = directoryStart - directoryOffset;
    if (directoryStart < 0 || base < 0) return null;
    if (entries === 0) return directorySize === 0 ? { span: { base, end }, entries } : null;
    if (directorySize < 46 || at(directoryStart, 4)?.readUInt32LE(0) !== DIRECTORY_RECORD) return null;
    return { span: { base, end }, entries };
  };
  const exact = candidates.find((i) => endOf(i) === size);
  const exactChecked = exact === undefined ? null : check(exact);
  if (exactChecked !== null && exactChecked.entries !== 0) return exactChecked.span;
  for (const i of candidates) {
    if (i === exact) continue;
    const checked = check(i);
    if (checked !== null && checked.entries !== 0) return checked.span;
  }
  // An empty archive: what the library reads of it, nothing moved.
  if (exactChecked !== null) return { base: 0, end: size };
  return null;
}

/** {@link locateArchive} for an open file. */
export function spanOfFile(fd: number, size: number): ArchiveSpan {
  const length = Math.min(size, END_SEARCH);
  const at = (position: number, want: number): Buffer | null => {
    try {
      const bytes = Buffer.alloc(want);
      return readSync(fd, bytes, 0, want, position) === want ? bytes : null;
    } catch {
      return null;
    }
  };
  const tail = at(size - length, length);
  return (tail !== null ? locateArchive(tail, size, at) : null) ?? { base: 0, end: size };
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

/**
 * The size the end record at `endRecord` (a file position) gives the central directory, or its zip64 end
 * record's when a zip64 locator precedes it (as the library reads it); null when neither can be read.
 * The archive starts `base` bytes into the file. `at(position, length)` reads the file.
 */
export function declaredDirectorySize(
  endRecord: number,
  base: number,
  at: (position: number, length: number) => Buffer | null,
): number | null {
  const record = endRecord >= 0 ? at(endRecord, END_RECORD) : null;
  if (record === null || !record.subarray(0, 4).equals(END_SIGNATURE)) return null;
  const locator = endRecord >= 20 ? at(endRecord - 20, 20) : null;
  if (locator === null || locator.readUInt32LE(0) !== ZIP64_LOCATOR) return record.readUInt32LE(12);
  const offset = locator.readBigUInt64LE(8);
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  const zip64 = at(base + Number(offset), 56);
  if (zip64 === null || zip64.readUInt32LE(0) !== ZIP64_END) return null;
  const size = zip64.readBigUInt64LE(40);
  return size <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(size) : null;
}

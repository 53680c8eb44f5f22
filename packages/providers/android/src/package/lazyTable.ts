// An APK's resource table left in the file: when resources.arsc is stored (not deflated) and large, the
// load does not copy it into memory. Its CRC-32 is checked in the one read of the file that hashes it
// (see ../signing/fileDigests.ts), or, while the digest thread hashes the file, from the bytes the
// analysis decodes. The analysis reads it whole into a buffer a process keeps across calls (see
// ../format/scratch.ts), or, for a process's first table, a larger one, or while that buffer is lent,
// through a few reused pages of the file (see ../format/fileBytes.ts), reading only the parts it looks at.
import type { ZipEntryRecord } from '@rea/artifact';
import type { ReadAt } from '../format/signingBlock.js';

const TABLE = 'resources.arsc';
/** Smaller tables are read into memory with the other entries. */
const LAZY_FROM = 1024 * 1024;

/** The CRC-32 of a table's bytes, as the first decode that read them whole observed it (else null). */
export interface TableCrc {
  crc32: number | null;
}

/** Where a resource table's bytes lie in an APK file. */
export interface TableInFile {
  file: string;
  offset: number;
  size: number;
  /**
   * Set while the load's check of the table's CRC-32 is pending: a decode that reads the table whole
   * fills it in, and the check takes it rather than read the bytes again.
   */
  seen?: TableCrc;
}

/** The stored, large resources.arsc of an APK's entries (among `select`), or null. */
export function lazyTable(entries: readonly ZipEntryRecord[], select: readonly string[]): ZipEntryRecord | null {
  if (!select.includes(TABLE)) return null;
  const record = entries.find((e) => e.path === TABLE);
  if (record === undefined || record.problem !== null || record.encrypted || record.kind !== 'file') return null;
  if (record.compressionMethod !== 0 || record.compressedSize !== record.size || record.size < LAZY_FROM) return null;
  return record;
}

/**
 * Where the data of `record` lies in `file` (read from its local header), or null when the header is
 * not one or the data would reach past `limit` (then the entry is read the ordinary way).
 */
export async function dataRange(
  file: ReadAt,
  record: ZipEntryRecord,
  limit: number,
): Promise<{ start: number; end: number } | null> {
  const header = Buffer.alloc(30);
  const { bytesRead } = await file.read(header, 0, 30, record.localHeaderOffset);
  if (bytesRead !== 30 || header.readUInt32LE(0) !== 0x04034b50) return null;
  const start = record.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  return start + record.size <= limit ? { start, end: start + record.size } : null;
}

// The ZIP entry API as the package index exports it: the ZIP engine and readers load on first use, so
// importing @rea/artifact stays cheap.
import type { OpenZipEntriesOptions, ZipEntries, ZipEntryRecord } from './entries.js';

/**
 * Opens a ZIP's central directory and returns its entries with a reader for chosen entries, without
 * inflating or hashing anything else. See `ZipEntries`.
 */
export async function openZipEntries(
  source: string | Buffer,
  options: OpenZipEntriesOptions = {},
): Promise<ZipEntries> {
  return (await import('./entries.js')).openZipEntries(source, options);
}

/** Lists a ZIP's entries from its central directory only (nothing is inflated). */
export async function listZipEntries(
  source: string | Buffer,
  options: OpenZipEntriesOptions = {},
): Promise<{ entries: readonly ZipEntryRecord[]; complete: boolean; declaredCount: number }> {
  return (await import('./entries.js')).listZipEntries(source, options);
}

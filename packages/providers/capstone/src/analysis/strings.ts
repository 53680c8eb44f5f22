import type { BinaryLayout } from '@rea/artifact';
import { CHECK_MASK, Pacer } from './pace.js';

/** One string found in a data section. */
export interface StringRecord {
  address: number;
  value: string;
  encoding: 'ascii' | 'utf-16le';
  section: string;
}

/** Shortest run reported as a string. */
export const MIN_STRING = 4;
/** Upper bound on strings kept, so a data-heavy binary cannot exhaust memory. */
export const MAX_STRINGS = 500_000;

/** 1 for a byte that may appear in a string (printable ASCII, tab, LF, CR), by byte value. */
const PRINTABLE = new Uint8Array(256);
for (let b = 0x20; b < 0x7f; b += 1) PRINTABLE[b] = 1;
PRINTABLE[0x09] = PRINTABLE[0x0a] = PRINTABLE[0x0d] = 1;

function printable(b: number): boolean {
  return PRINTABLE[b] === 1;
}

/**
 * NUL-terminated printable ASCII runs (and, on PE, UTF-16LE runs) of at least {@link MIN_STRING}
 * characters in allocated, non-executable sections with file bytes.
 */
export async function findStrings(
  layout: BinaryLayout,
  signal: AbortSignal,
  pacer: Pacer = new Pacer(signal),
): Promise<{ strings: StringRecord[]; truncated: boolean }> {
  const strings: StringRecord[] = [];
  const wide = layout.format === 'pe';
  for (const section of layout.sections) {
    if (!section.flags.alloc || section.flags.execute || section.fileSize === 0 || section.address === 0) continue;
    const bytes = layout.readAt(section.address, Math.min(section.size, section.fileSize));
    if (!bytes) continue;
    // One view over the section: each string is decoded from it without copying its bytes first.
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // The byte after the section counts as a NUL terminator.
    const length = bytes.length;
    let start = -1;
    for (let i = 0; i <= length; i += 1) {
      if ((i & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('strings');
      const b = i < length ? bytes[i]! : 0;
      if (PRINTABLE[b] === 1) {
        if (start < 0) start = i;
        continue;
      }
      if (b === 0 && start >= 0 && i - start >= MIN_STRING) {
        strings.push({
          address: section.address + start,
          value: text.toString('latin1', start, i),
          encoding: 'ascii',
          section: section.name,
        });
        if (strings.length >= MAX_STRINGS) return { strings, truncated: true };
      }
      start = -1;
    }
    if (wide) {
      start = -1;
      for (let i = 0; i + 1 < bytes.length + 2; i += 2) {
        if ((i & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('strings');
        const lo = i < bytes.length ? bytes[i]! : 0;
        const hi = i + 1 < bytes.length ? bytes[i + 1]! : 0;
        if (hi === 0 && lo !== 0 && printable(lo)) {
          if (start < 0) start = i;
          continue;
        }
        if (start >= 0 && lo === 0 && hi === 0 && (i - start) / 2 >= MIN_STRING) {
          strings.push({
            address: section.address + start,
            value: text.toString('utf16le', start, i),
            encoding: 'utf-16le',
            section: section.name,
          });
          if (strings.length >= MAX_STRINGS) return { strings, truncated: true };
        }
        start = -1;
      }
    }
  }
  strings.sort((a, b) => a.address - b.address);
  return { strings, truncated: false };
}

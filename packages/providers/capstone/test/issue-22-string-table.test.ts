/*
 * An open keeps every string it finds for list_strings and string lookups. They are kept as columns
 * (address, place in the section, length, section and encoding) and decoded from the file's bytes
 * when asked for, instead of as an object and a JavaScript string each: tens of thousands of strings
 * in a large binary cost about 20 bytes each instead of over a hundred. This holds the strings found
 * exactly as the search defines them (ASCII and, in PE, UTF-16LE runs, in address order across
 * sections given out of order) and the JavaScript heap they take under 40 bytes a string. The modules
 * are internal, so they are imported from the package source.
 */
import { describe, expect, it } from '@jest/globals';
import type { BinaryLayout, LayoutSection } from '@rea/artifact';
import { findStrings } from '../src/analysis/strings.js';

/** A layout holding only `sections` (name, address, bytes): all that the string search reads. */
function layoutOf(format: 'elf' | 'pe', sections: Array<[string, number, Buffer]>): BinaryLayout {
  const layoutSections: LayoutSection[] = sections.map(([name, address, bytes]) => ({
    name,
    address,
    offset: 0,
    size: bytes.length,
    fileSize: bytes.length,
    type: 'data',
    flags: { alloc: true, write: false, execute: false },
  }));
  const readAt = (address: number, length: number) => {
    const hit = sections.find(([, start, bytes]) => address >= start && address + length <= start + bytes.length);
    return hit ? hit[2].subarray(address - hit[1], address - hit[1] + length) : null;
  };
  return { format, sections: layoutSections, readAt } as unknown as BinaryLayout;
}

const signal = new AbortController().signal;

describe('issue 22: strings are kept as columns and decoded when asked for', () => {
  it('should find ASCII and UTF-16LE strings in address order with their sections', async () => {
    const ascii = Buffer.from('\0\0hello world\0abc\0four\0tail-run', 'latin1');
    const wide = Buffer.concat([Buffer.from('\0\0', 'latin1'), Buffer.from('Wide text\0', 'utf16le'), ascii]);
    // Sections listed out of address order: the strings come back sorted by address.
    const layout = layoutOf('pe', [
      ['.rdata', 0x5000, wide],
      ['.data', 0x1000, ascii],
    ]);
    const { strings, truncated } = await findStrings(layout, signal);
    expect(truncated).toBe(false);
    const records = Array.from({ length: strings.count }, (_, i) => strings.record(i));
    expect(records).toEqual([
      { address: 0x1002, value: 'hello world', encoding: 'ascii', section: '.data' },
      { address: 0x1012, value: 'four', encoding: 'ascii', section: '.data' },
      // The end of a section ends its last run.
      { address: 0x1017, value: 'tail-run', encoding: 'ascii', section: '.data' },
      { address: 0x5002, value: 'Wide text', encoding: 'utf-16le', section: '.rdata' },
      { address: 0x5018, value: 'hello world', encoding: 'ascii', section: '.rdata' },
      { address: 0x5028, value: 'four', encoding: 'ascii', section: '.rdata' },
      { address: 0x502d, value: 'tail-run', encoding: 'ascii', section: '.rdata' },
    ]);
    expect(Array.from(strings.addresses)).toEqual(records.map((r) => r.address));
    // ELF has no UTF-16 search.
    const elf = await findStrings(layoutOf('elf', [['.rodata', 0x5000, wide]]), signal);
    expect(elf.strings.count).toBe(3);
  });

  it('should keep a string whole across the control characters of text, counting only printable ones', async () => {
    // As `puts("EVIL\033[2J\033]0;pwned\007 text here")` compiles: a colour and title escape inside one
    // literal. Before, only " text here" (after the last control character) was found.
    const literal = 'EVIL\x1b[2J\x1b]0;pwned\x07 text here';
    // After them: a run of two printable characters among three control ones (too short), a run that a
    // control character precedes (the last byte of a pointer, 0x08 of 0x0804a0ca: not taken in), and one
    // after another byte.
    const bytes = Buffer.from(`\0${literal}\0\x1b\x1b\x07ab\0\xca\x90\x04\x08password\0\x01text\0`, 'latin1');
    const { strings } = await findStrings(layoutOf('elf', [['.rodata', 0x2000, bytes]]), signal);
    expect(Array.from({ length: strings.count }, (_, i) => strings.record(i).value)).toEqual([
      literal,
      'password',
      'text',
    ]);
    expect(strings.record(1).address).toBe(0x2001 + literal.length + 1 + 6 + 4);
    expect(strings.record(0).address).toBe(0x2001);
  });

  it('should find the same strings in sections scanned a slice at a time, runs crossing slice ends included', async () => {
    // 200 KB of printable runs of 1-40 bytes between NUL or other bytes (the scan goes 64 KiB at a
    // time), with runs placed across two slice ends and one whose NUL is the first byte of a slice.
    let seed = 11;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const bytes = Buffer.alloc(200_000);
    for (let at = 0; at < bytes.length;) {
      const run = 1 + Math.floor(random() * 40);
      for (let k = 0; k < run && at < bytes.length; k += 1) bytes[at++] = 0x20 + Math.floor(random() * 95);
      if (at < bytes.length) bytes[at++] = random() < 0.8 ? 0 : 0x01 + Math.floor(random() * 8);
    }
    const place = (value: string, at: number) => {
      bytes[at - 1] = 0;
      bytes.write(value, at, 'latin1');
      bytes[at + value.length] = 0;
    };
    place('across-the-first-slice-end', 0x10000 - 10);
    place('ends-at-slice', 0x20000 - 13);
    place('across-the-third-slice-end', 0x30000 - 3);
    // The oracle: maximal runs of printable bytes and the control characters of text (BEL, BS, VT, FF,
    // ESC) that start at a printable byte, hold at least 4 printable ones, and that a NUL (or the
    // section's end) ends.
    const oracle = (text: string, at: (index: number) => number) => {
      const found: Array<{ address: number; value: string }> = [];
      // eslint-disable-next-line no-control-regex -- the control characters of text are what is searched for
      for (const m of text.matchAll(/[\t\n\r\x20-\x7e][\t\n\r\x20-\x7e\x07\x08\x0b\x0c\x1b]*/g)) {
        const end = m.index + m[0].length;
        // eslint-disable-next-line no-control-regex -- the control characters of text are what is searched for
        const printable = m[0].replace(/[\x07\x08\x0b\x0c\x1b]/g, '').length;
        if (printable >= 4 && (end === text.length || text.charCodeAt(end) === 0))
          found.push({ address: at(m.index), value: m[0] });
      }
      return found;
    };
    const text = bytes.toString('latin1');
    const want = oracle(text, (index) => 0x40_0000 + index);
    for (const placed of ['across-the-first-slice-end', 'ends-at-slice', 'across-the-third-slice-end'])
      expect(want.map((w) => w.value)).toContain(placed);
    const found = async (format: 'elf' | 'pe', address: number, section: Buffer, encoding: string) => {
      const { strings } = await findStrings(layoutOf(format, [['.rodata', address, section]]), signal);
      return Array.from({ length: strings.count }, (_, i) => strings.record(i))
        .filter((r) => r.encoding === encoding)
        .map(({ address: a, value }) => ({ address: a, value }));
    };
    expect(await found('elf', 0x40_0000, bytes, 'ascii')).toEqual(want);
    // UTF-16LE (PE): the first 90,000 characters as wide ones, so their runs cross slice ends elsewhere.
    const head = text.slice(0, 90_000);
    const wideWant = oracle(head, (index) => 0x80_0000 + index * 2);
    expect(await found('pe', 0x80_0000, Buffer.from(head, 'utf16le'), 'utf-16le')).toEqual(wideWant);
    expect(wideWant.length).toBeGreaterThan(1000);
  });

  it('should hold 200,000 strings in under 40 bytes of JavaScript heap each', async () => {
    const count = 200_000;
    const bytes = Buffer.alloc(count * 16);
    for (let i = 0; i < count; i += 1) bytes.write(`s${String(i).padStart(14, '0')}`, i * 16, 'latin1');
    const layout = layoutOf('elf', [['.rodata', 0x10_0000, bytes]]);
    const before = process.memoryUsage().heapUsed;
    const { strings } = await findStrings(layout, signal);
    const grown = process.memoryUsage().heapUsed - before;
    expect(strings.count).toBe(count);
    expect(strings.record(123_456)).toEqual({
      address: 0x10_0000 + 123_456 * 16,
      value: 's00000000123456',
      encoding: 'ascii',
      section: '.rodata',
    });
    expect(grown / count).toBeLessThan(40);
  });
});

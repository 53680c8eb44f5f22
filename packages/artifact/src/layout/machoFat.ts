import type { Work } from './cooperative.js';
import { ByteReader, malformed } from './reader.js';
import { parseMachO } from './macho.js';
import { sliceName } from './machoNames.js';
import { subSource } from './source.js';
import type { ByteSource } from './source.js';
import type { BinaryLayout, LayoutSlice } from './types.js';

const PREFERENCE = ['x86_64', 'x86_64h', 'arm64', 'arm64e'];

/**
 * Parses a fat (universal) Mach-O: lists every slice and describes one (x86_64 first, then arm64,
 * else the first). Offsets of the described slice are file offsets in the fat file; `readAt` reads
 * that slice.
 */
export function* parseFatMachO(source: ByteSource): Work<BinaryLayout> {
  const r = new ByteReader(source, false, 'macho-fat');
  r.check(0, 8, 'fat header');
  const wide = r.u32(0) === 0xcafebabf;
  const count = r.u32(4);
  const entry = wide ? 32 : 20;
  if (count === 0 || count > 64)
    throw malformed('macho-fat', 'malformed', `A fat header with ${count} slices is implausible.`);
  r.check(8, count * entry, 'fat architecture table');
  const slices: LayoutSlice[] = [];
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < count; i += 1) {
    const o = 8 + i * entry;
    const offset = wide ? r.u64(o + 8, 'slice offset') : r.u32(o + 8);
    const size = wide ? r.u64(o + 16, 'slice size') : r.u32(o + 12);
    r.check(offset, size, `slice ${i}`);
    if (offset < 8 + count * entry) throw malformed('macho-fat', 'malformed', `Slice ${i} overlaps the fat header.`);
    for (const [start, length] of ranges) {
      if (offset < start + length && start < offset + size)
        throw malformed('macho-fat', 'malformed', `Slice ${i} overlaps another slice.`);
    }
    ranges.push([offset, size]);
    slices.push({ architecture: sliceName(r.u32(o), r.u32(o + 4)), offset, size });
  }
  yield 'fat header';
  const chosen =
    PREFERENCE.map((name) => slices.find((s) => s.architecture === name)).find((s) => s !== undefined) ?? slices[0]!;
  const layout = yield* parseMachO(subSource(source, chosen.offset, chosen.size));
  const shift = chosen.offset;
  return {
    ...layout,
    format: 'macho-fat',
    sections: layout.sections.map((s) => ({ ...s, offset: s.offset === 0 && s.fileSize === 0 ? 0 : s.offset + shift })),
    segments: layout.segments.map((s) => ({ ...s, offset: s.fileSize === 0 ? s.offset : s.offset + shift })),
    slices,
  };
}

import type { ElfContext } from './elfContext.js';

const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;
/** Bounds the walk of a hostile verneed chain. */
const MAX_ENTRIES = 1 << 16;

/**
 * The library each versioned dynamic symbol is bound to, from GNU symbol versioning: `.gnu.version`
 * gives each .dynsym entry a version index, `.gnu.version_r` names the file that defines each needed
 * version. Returns dynsym index → library file name (unversioned symbols are absent). Malformed
 * version tables yield fewer names, never an error: they only refine the import list.
 */
export function readElfImportLibraries(context: ElfContext): Map<number, string> {
  const { reader: r, sections } = context;
  const out = new Map<number, string>();
  const versym = sections.find((s) => s.type === SHT_GNU_VERSYM);
  const verneed = sections.find((s) => s.type === SHT_GNU_VERNEED);
  if (!versym || !verneed) return out;
  const strings = sections[verneed.link];
  if (!strings || !r.contains(strings.offset, strings.size) || !r.contains(verneed.offset, verneed.size)) return out;
  if (!r.contains(versym.offset, versym.size)) return out;
  const files = new Map<number, string>();
  const end = verneed.offset + verneed.size;
  let entry = verneed.offset;
  for (let n = 0; n < MAX_ENTRIES && entry + 16 <= end; n += 1) {
    const count = r.u16(entry + 2);
    const file = r.cstring(strings.offset + r.u32(entry + 4), strings.offset + strings.size);
    let aux = entry + r.u32(entry + 8);
    for (let i = 0; i < count && aux + 16 <= end && aux >= verneed.offset; i += 1) {
      files.set(r.u16(aux + 6) & 0x7fff, file);
      const next = r.u32(aux + 12);
      if (next === 0) break;
      aux += next;
    }
    const next = r.u32(entry + 12);
    if (next === 0) break;
    entry += next;
  }
  const region = r.region(versym.offset, versym.size, 'symbol version table');
  const count = Math.floor(versym.size / 2);
  for (let index = 1; index < count; index += 1) {
    const version = region.view.getUint16(versym.offset - region.base + index * 2, r.little) & 0x7fff;
    const file = version >= 2 ? files.get(version) : undefined;
    if (file !== undefined) out.set(index, file);
  }
  return out;
}

import type { BinaryLayout } from '@rea/artifact';
import { CHECK_MASK } from './pace.js';
import type { Pacer } from './pace.js';

/** A function extent recorded by unwind information. */
export interface UnwindExtent {
  start: number;
  size: number;
}

class Cursor {
  constructor(
    readonly bytes: Uint8Array,
    readonly view: DataView,
    public pos: number,
  ) {}
  u8(): number {
    return this.view.getUint8(this.pos++);
  }
  uleb(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.u8();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0 || shift > 49) return result;
    }
  }
  sleb(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      b = this.u8();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80 && shift < 49);
    if (b & 0x40) result -= 2 ** shift;
    return result;
  }
}

/** Reads a DWARF pointer encoding at the cursor; `base` is the field's virtual address (for pcrel). */
function encoded(c: Cursor, encoding: number, base: number, pointerSize: number): number {
  const start = c.pos;
  let value: number;
  switch (encoding & 0x0f) {
    case 0x00:
      value = pointerSize === 8 ? Number(c.view.getBigUint64(c.pos, true)) : c.view.getUint32(c.pos, true);
      c.pos += pointerSize;
      break;
    case 0x01:
      value = c.uleb();
      break;
    case 0x02:
      value = c.view.getUint16(c.pos, true);
      c.pos += 2;
      break;
    case 0x03:
      value = c.view.getUint32(c.pos, true);
      c.pos += 4;
      break;
    case 0x04:
      value = Number(c.view.getBigUint64(c.pos, true));
      c.pos += 8;
      break;
    case 0x09:
      value = c.sleb();
      break;
    case 0x0a:
      value = c.view.getInt16(c.pos, true);
      c.pos += 2;
      break;
    case 0x0b:
      value = c.view.getInt32(c.pos, true);
      c.pos += 4;
      break;
    case 0x0c:
      value = Number(c.view.getBigInt64(c.pos, true));
      c.pos += 8;
      break;
    default:
      throw new RangeError('unsupported pointer encoding');
  }
  if ((encoding & 0x70) === 0x10) value += base + (start - 0);
  return value;
}

/**
 * Function extents from `.eh_frame` FDEs (ELF, little-endian). Malformed entries end the walk: unwind
 * data is a hint for discovery, never a reason to refuse the file.
 */
export async function ehFrameExtents(layout: BinaryLayout, pacer: Pacer): Promise<UnwindExtent[]> {
  const section = layout.sections.find((s) => s.name === '.eh_frame' && s.address !== 0 && s.fileSize > 0);
  if (!section || layout.endianness !== 'little') return [];
  const bytes = layout.readAt(section.address, section.fileSize);
  if (!bytes) return [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pointerSize = layout.bits === 64 ? 8 : 4;
  const cies = new Map<number, number>();
  const out: UnwindExtent[] = [];
  let pos = 0;
  let entries = 0;
  try {
    while (pos + 8 <= bytes.length) {
      if ((++entries & CHECK_MASK) === 0 && pacer.due()) await pacer.turn('discovery');
      const length = view.getUint32(pos, true);
      if (length === 0 || length === 0xffffffff) break;
      const idPos = pos + 4;
      const end = idPos + length;
      if (end > bytes.length) break;
      const id = view.getUint32(idPos, true);
      if (id === 0) {
        const c = new Cursor(bytes, view, idPos + 4);
        const version = c.u8();
        let aug = '';
        for (let ch = c.u8(); ch !== 0; ch = c.u8()) aug += String.fromCharCode(ch);
        if (aug.includes('eh')) c.pos += pointerSize;
        c.uleb();
        c.sleb();
        if (version === 1) c.u8();
        else c.uleb();
        let fdeEncoding = 0;
        if (aug.startsWith('z')) {
          c.uleb();
          for (const ch of aug.slice(1)) {
            if (ch === 'R') fdeEncoding = c.u8();
            else if (ch === 'L') c.u8();
            else if (ch === 'P') encoded(c, c.u8() & 0x7f, section.address, pointerSize);
          }
        }
        cies.set(pos, fdeEncoding);
      } else {
        const encoding = cies.get(idPos - id);
        if (encoding !== undefined) {
          const c = new Cursor(bytes, view, idPos + 4);
          const start = encoded(c, encoding, section.address, pointerSize);
          const size = encoded(c, encoding & 0x0f, 0, pointerSize);
          if (size > 0 && Number.isSafeInteger(start)) out.push({ start, size });
        }
      }
      pos = end;
    }
  } catch {
    return out;
  }
  return out;
}

/** Function extents from a PE `.pdata` exception directory (x64 RUNTIME_FUNCTION entries). */
export function pdataExtents(layout: BinaryLayout): UnwindExtent[] {
  if (layout.format !== 'pe' || layout.architecture !== 'x86_64') return [];
  const section = layout.sections.find((s) => s.name === '.pdata' && s.fileSize > 0);
  if (!section) return [];
  const bytes = layout.readAt(section.address, Math.min(section.size, section.fileSize));
  if (!bytes) return [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: UnwindExtent[] = [];
  for (let pos = 0; pos + 12 <= bytes.length; pos += 12) {
    const begin = view.getUint32(pos, true);
    const end = view.getUint32(pos + 4, true);
    if (begin === 0 && end === 0) break;
    if (end > begin) out.push({ start: layout.imageBase + begin, size: end - begin });
  }
  return out;
}

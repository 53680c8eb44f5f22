// Byte-level encoders of the canonical writer: JSON strings as UTF-8 and JSON numbers, written into a
// caller's buffer at a position and returning the position after them. They never check for room:
// the writer guarantees it (see canonicalBytes.ts).

/** A value JSON cannot carry, found while writing; the writer adds the path as the error unwinds. */
export class Refusal {
  /** Object keys and array indices from the refused value up to the root (innermost first). */
  readonly steps: Array<string | number> = [];

  constructor(readonly problem: string) {}
}

/** Most UTF-8 bytes one UTF-16 code unit can need in a JSON string: `\u001f` is six. */
export const MAX_BYTES_PER_UNIT = 6;

const HEX = [0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66];

/**
 * Writes code units `from` to `to` (exclusive) of `text` as the inside of a JSON string, in UTF-8 with
 * the RFC 8785 escapes: `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other controls as `\u00xx` with
 * lowercase hex; everything else as itself. A surrogate pair becomes one four-byte sequence; a lone
 * surrogate is refused. `to` must not fall between the two halves of a pair.
 */
export function writeStringUnits(buf: Uint8Array, text: string, from: number, to: number, pos: number): number {
  for (let i = from; i < to; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
        buf[pos++] = c;
        continue;
      }
      buf[pos++] = 0x5c;
      switch (c) {
        case 0x22:
        case 0x5c:
          buf[pos++] = c;
          break;
        case 0x08:
          buf[pos++] = 0x62;
          break;
        case 0x09:
          buf[pos++] = 0x74;
          break;
        case 0x0a:
          buf[pos++] = 0x6e;
          break;
        case 0x0c:
          buf[pos++] = 0x66;
          break;
        case 0x0d:
          buf[pos++] = 0x72;
          break;
        default:
          buf[pos++] = 0x75;
          buf[pos++] = 0x30;
          buf[pos++] = 0x30;
          buf[pos++] = HEX[c >> 4]!;
          buf[pos++] = HEX[c & 0xf]!;
      }
    } else if (c < 0x800) {
      buf[pos++] = 0xc0 | (c >> 6);
      buf[pos++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      buf[pos++] = 0xe0 | (c >> 12);
      buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
      buf[pos++] = 0x80 | (c & 0x3f);
    } else {
      const low = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || low < 0xdc00 || low > 0xdfff) throw new Refusal('string contains a lone surrogate');
      const point = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
      buf[pos++] = 0xf0 | (point >> 18);
      buf[pos++] = 0x80 | ((point >> 12) & 0x3f);
      buf[pos++] = 0x80 | ((point >> 6) & 0x3f);
      buf[pos++] = 0x80 | (point & 0x3f);
      i += 1;
    }
  }
  return pos;
}

/** Longest JSON number text: ECMAScript's Number-to-String never exceeds 25 characters. */
export const MAX_NUMBER_BYTES = 25;

/**
 * Writes `n` in the RFC 8785 number form, which is ECMAScript's Number-to-String (`-0` as `0`).
 * Integers of 32 bits are written digit by digit; other numbers go through `String`. NaN and the
 * infinities are refused.
 */
export function writeNumber(buf: Uint8Array, n: number, pos: number): number {
  if ((n | 0) === n) {
    // -0 passes this test and, being equal to 0, is written as "0".
    if (n < 0) {
      buf[pos++] = 0x2d;
      n = -n;
    }
    if (n < 10) {
      buf[pos] = 0x30 + n;
      return pos + 1;
    }
    let digits = 1;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
    const end = pos + digits;
    for (let at = end - 1; at >= pos; at -= 1) {
      const rest = Math.floor(n / 10);
      buf[at] = 0x30 + (n - rest * 10);
      n = rest;
    }
    return end;
  }
  if (!Number.isFinite(n)) throw new Refusal(`${String(n)} is not a JSON number`);
  const text = String(n);
  for (let i = 0; i < text.length; i += 1) buf[pos++] = text.charCodeAt(i);
  return pos;
}

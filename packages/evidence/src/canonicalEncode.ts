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

/** 1 for the code units below 0x80 that a JSON string holds as themselves, 0 for those it escapes. */
const PLAIN = new Uint8Array(0x80);
for (let unit = 0x20; unit < 0x80; unit += 1) PLAIN[unit] = unit === 0x22 || unit === 0x5c ? 0 : 1;

/**
 * Writes code units `from` to `to` (exclusive) of `text` as the inside of a JSON string, in UTF-8 with
 * the RFC 8785 escapes: `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other controls as `\u00xx` with
 * lowercase hex; everything else as itself. A surrogate pair becomes one four-byte sequence; a lone
 * surrogate is refused. `to` must not fall between the two halves of a pair. `view` is a DataView of
 * `buf`: runs of four plain ASCII units are stored as one 32-bit word.
 */
export function writeStringUnits(
  buf: Uint8Array,
  view: DataView,
  text: string,
  from: number,
  to: number,
  pos: number,
): number {
  let i = from;
  while (i < to) {
    if (i + 4 <= to) {
      const a = text.charCodeAt(i);
      const b = text.charCodeAt(i + 1);
      const c = text.charCodeAt(i + 2);
      const d = text.charCodeAt(i + 3);
      if ((a | b | c | d) < 0x80 && (PLAIN[a]! & PLAIN[b]! & PLAIN[c]! & PLAIN[d]!) !== 0) {
        view.setUint32(pos, a | (b << 8) | (c << 16) | (d << 24), true);
        pos += 4;
        i += 4;
        continue;
      }
    }
    // Up to four units one at a time, then back to words.
    const stop = Math.min(i + 4, to);
    while (i < stop) {
      pos = writeUnit(buf, text, i, pos);
      // A surrogate pair took two units; writeUnit marks it with a negative position.
      if (pos < 0) {
        pos = -pos;
        i += 2;
      } else {
        i += 1;
      }
    }
  }
  return pos;
}

/**
 * Writes the code unit of `text` at `i`, and returns the position after it; for a surrogate pair,
 * writes the pair and returns the position after it negated.
 */
function writeUnit(buf: Uint8Array, text: string, i: number, pos: number): number {
  const c = text.charCodeAt(i);
  if (c < 0x80) {
    if (PLAIN[c] === 1) {
      buf[pos] = c;
      return pos + 1;
    }
    buf[pos++] = 0x5c;
    switch (c) {
      case 0x22:
      case 0x5c:
        buf[pos] = c;
        return pos + 1;
      case 0x08:
        buf[pos] = 0x62;
        return pos + 1;
      case 0x09:
        buf[pos] = 0x74;
        return pos + 1;
      case 0x0a:
        buf[pos] = 0x6e;
        return pos + 1;
      case 0x0c:
        buf[pos] = 0x66;
        return pos + 1;
      case 0x0d:
        buf[pos] = 0x72;
        return pos + 1;
      default:
        buf[pos] = 0x75;
        buf[pos + 1] = 0x30;
        buf[pos + 2] = 0x30;
        buf[pos + 3] = HEX[c >> 4]!;
        buf[pos + 4] = HEX[c & 0xf]!;
        return pos + 5;
    }
  }
  if (c < 0x800) {
    buf[pos] = 0xc0 | (c >> 6);
    buf[pos + 1] = 0x80 | (c & 0x3f);
    return pos + 2;
  }
  if (c < 0xd800 || c > 0xdfff) {
    buf[pos] = 0xe0 | (c >> 12);
    buf[pos + 1] = 0x80 | ((c >> 6) & 0x3f);
    buf[pos + 2] = 0x80 | (c & 0x3f);
    return pos + 3;
  }
  const low = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
  if (c > 0xdbff || low < 0xdc00 || low > 0xdfff) throw new Refusal('string contains a lone surrogate');
  const point = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  buf[pos] = 0xf0 | (point >> 18);
  buf[pos + 1] = 0x80 | ((point >> 12) & 0x3f);
  buf[pos + 2] = 0x80 | ((point >> 6) & 0x3f);
  buf[pos + 3] = 0x80 | (point & 0x3f);
  return -(pos + 4);
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
    // n is below 2 ** 31 + 1 here, so `>>> 0` truncates the quotients exactly.
    let digits = 2;
    for (let limit = 100; digits < 10 && n >= limit; limit *= 10) digits += 1;
    const end = pos + digits;
    for (let at = end - 1; at >= pos; at -= 1) {
      const rest = (n / 10) >>> 0;
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

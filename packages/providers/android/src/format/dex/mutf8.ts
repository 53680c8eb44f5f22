/**
 * Decodes Modified UTF-8 (DEX string data): like UTF-8, but NUL is written as C0 80 and characters
 * outside the BMP as two 3-byte surrogates. Stops at the terminating NUL or at `end`. Bytes that do not
 * form a valid sequence decode as U+FFFD.
 */
export function decodeMutf8(buffer: Buffer, start: number, end: number, units: number): string {
  // Most DEX strings are ASCII: decode those in one call.
  const limit = Math.min(end, start + units);
  let q = start;
  while (q < limit && buffer[q]! !== 0 && buffer[q]! < 0x80) q++;
  if (q === limit || buffer[q] === 0) return buffer.toString('latin1', start, q);
  const out: number[] = [];
  let p = start;
  while (p < end && out.length < units) {
    const a = buffer[p++]!;
    if (a === 0) break;
    if (a < 0x80) {
      out.push(a);
    } else if ((a & 0xe0) === 0xc0 && p < end) {
      out.push(((a & 0x1f) << 6) | (buffer[p++]! & 0x3f));
    } else if ((a & 0xf0) === 0xe0 && p + 1 < end) {
      out.push(((a & 0x0f) << 12) | ((buffer[p++]! & 0x3f) << 6) | (buffer[p++]! & 0x3f));
    } else {
      out.push(0xfffd);
    }
  }
  let text = '';
  for (let i = 0; i < out.length; i += 8192) text += String.fromCharCode(...out.slice(i, i + 8192));
  return text;
}

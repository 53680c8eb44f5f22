import { crc32 } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** What is wrong with bytes that should be a PNG, in plain words, with a stable code. */
export interface PngProblem {
  /** `empty`, `not-png`, `truncated`, `no-header`, `bad-header`, `damaged-chunk`, `no-image-data` or `undecodable`. */
  problem: string;
  /** A sentence completing "the file …". */
  says: string;
}

/** True when `bytes` start with the eight-byte PNG signature. */
export function hasPngSignature(bytes: Buffer): boolean {
  return bytes.length >= 8 && bytes.subarray(0, 8).equals(SIGNATURE);
}

// The bit depths each PNG colour type allows.
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/** What a 13-byte IHDR holds that no PNG may have, or null. */
function headerFault(ihdr: Buffer): string | null {
  if (ihdr.length !== 13) return `a header of ${ihdr.length} bytes instead of 13`;
  const [width, height] = [ihdr.readUInt32BE(0), ihdr.readUInt32BE(4)];
  const [depth, colour, compression, filter, interlace] = [ihdr[8]!, ihdr[9]!, ihdr[10]!, ihdr[11]!, ihdr[12]!];
  if (width === 0 || height === 0) return `a size of ${width}x${height}`;
  if (!(colour in DEPTHS)) return `colour type ${colour}`;
  if (!DEPTHS[colour]!.includes(depth)) return `bit depth ${depth} with colour type ${colour}`;
  if (compression !== 0 || filter !== 0 || interlace > 1)
    return 'a compression, filter or interlace method PNG does not define';
  return null;
}

/**
 * Walks the chunks of `bytes` (length, type, data, CRC-32) and names the first structural fault:
 * no signature, a chunk running past the end or a file ending before `IEND`, a first chunk other than
 * `IHDR` or one whose values no PNG may have, a chunk whose checksum does not match, no `IDAT`. Null
 * when the structure is sound (the image may still fail to decode).
 */
export function pngStructureProblem(bytes: Buffer): PngProblem | null {
  if (bytes.length === 0) return { problem: 'empty', says: 'is empty' };
  if (!hasPngSignature(bytes))
    return { problem: 'not-png', says: 'does not start with the PNG signature, so it is some other kind of file' };
  let offset = 8;
  let first = true;
  let imageData = false;
  for (;;) {
    if (offset + 12 > bytes.length)
      return { problem: 'truncated', says: 'ends before the image is complete (it was cut short)' };
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const end = offset + 12 + length;
    if (length > 0x7fffffff || end > bytes.length)
      return { problem: 'truncated', says: 'ends before the image is complete (it was cut short)' };
    if (first && type !== 'IHDR')
      return { problem: 'no-header', says: 'has no image header where a PNG must start with one' };
    const stored = bytes.readUInt32BE(end - 4);
    if (crc32(bytes.subarray(offset + 4, end - 4)) !== stored)
      return { problem: 'damaged-chunk', says: `is damaged: its ${JSON.stringify(type)} part fails its checksum` };
    const fault = first ? headerFault(bytes.subarray(offset + 8, end - 4)) : null;
    if (fault !== null) return { problem: 'bad-header', says: `has an image header no PNG may have (${fault})` };
    if (type === 'IDAT') imageData = true;
    if (type === 'IEND') return imageData ? null : { problem: 'no-image-data', says: 'holds no image data' };
    first = false;
    offset = end;
  }
}

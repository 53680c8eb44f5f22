/**
 * The only place pngjs and pixelmatch are loaded: PNG decoding and encoding, and a pixel diff of two
 * equally sized RGBA images.
 */
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

/** A decoded image: its size and RGBA bytes, four per pixel, row by row. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Decodes PNG bytes; throws the decoder's error when they are not a complete, valid PNG. */
export function decodePng(bytes: Uint8Array): RgbaImage {
  const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return { width: png.width, height: png.height, data: png.data };
}

/** Encodes an RGBA image as PNG bytes. */
export function encodePng(image: RgbaImage): Buffer {
  const png = new PNG({ width: image.width, height: image.height });
  Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength).copy(png.data);
  return PNG.sync.write(png);
}

/**
 * Counts the pixels that differ between two images of the same size, by a perceptual colour distance
 * above `threshold` (0 to 1, smaller is stricter), and returns them with a diff image (the first
 * image faded, differing pixels red).
 */
export function diffImages(a: RgbaImage, b: RgbaImage, threshold: number): { differing: number; diff: RgbaImage } {
  const data = new Uint8Array(a.width * a.height * 4);
  const differing = pixelmatch(a.data, b.data, data, a.width, a.height, { threshold, includeAA: true });
  return { differing, diff: { width: a.width, height: a.height, data } };
}

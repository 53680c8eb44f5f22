// Many whole raw-deflate streams (the entries of a ZIP) inflated one after another through one reused
// zlib engine: Node's one-shot inflate builds and frees an engine for every call.
import { inflateRawSync } from 'node:zlib';

/**
 * Declared sizes up to which the output is allocated whole ahead of inflating (a declaration is not
 * trusted with more: larger entries are inflated the one-shot way, a chunk at a time).
 */
const REUSE_UP_TO = 1 << 20;

/** Inflates whole raw-deflate streams with one reused engine; see {@link createRawInflater}. */
export interface RawInflater {
  /**
   * The bytes of `raw`, a whole raw-deflate stream that declares `declaredSize` bytes, exactly as
   * `inflateRawSync(raw, { maxOutputLength: declaredSize + 1 })` gives them: the declared bytes when
   * the stream holds that many; otherwise fewer, or zlib's own error (an undecodable stream, or
   * `ERR_BUFFER_TOO_LARGE` for a stream longer than declared).
   */
  inflate(raw: Uint8Array, declaredSize: number): Buffer;
  /** Releases the engine. */
  close(): void;
}

/**
 * A {@link RawInflater} for one caller's sequence of entries (not shared across concurrent work). The
 * zlib engine's module loads on first use, so importing @rea/artifact stays cheap.
 */
export async function createRawInflater(): Promise<RawInflater> {
  const { ReusableInflater } = await import('./engine/inflate.js');
  const inflater = new ReusableInflater();
  return {
    inflate(raw, declaredSize) {
      // One byte past the declared size tells a stream longer than declared.
      const room = Math.max(1, declaredSize + 1);
      if (room <= REUSE_UP_TO + 1) {
        const output = Buffer.allocUnsafe(room);
        if (inflater.inflateInto(raw, output) === declaredSize) return output.subarray(0, declaredSize);
      }
      // Anything unusual is decided, and described, by the one-shot inflate.
      return inflateRawSync(raw, { maxOutputLength: room, chunkSize: Math.max(64, Math.min(room, 1 << 20)) });
    },
    close: () => inflater.close(),
  };
}

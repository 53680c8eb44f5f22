// A little-endian view of a range of a file, read on demand through a few reused pages: a large
// structure such as an APK's resource table is decoded without holding (or touching) all of it.
import { readSync } from 'node:fs';
import { Bytes, malformed } from './bytes.js';
import { SCRATCH, giveBackScratch, takeScratch } from './scratch.js';

const PAGE = 64 * 1024;
/** Pages kept (one scratch buffer); the oldest one's buffer is reused for the next page read. */
const KEPT = SCRATCH / PAGE;

/**
 * The `size` bytes at `base` of the open file `fd`, with the checks of {@link Bytes}. Reads are
 * synchronous; a read short of the promised size is `malformed`.
 */
export class FileBytes extends Bytes {
  private readonly pages = new Map<number, Buffer>();
  private arena: Buffer | null = null;
  /** The page read last, and its number. */
  private current: Buffer = Buffer.alloc(0);
  private currentN = -1;

  constructor(
    private readonly fd: number,
    private readonly base: number,
    private readonly size: number,
    format: string,
  ) {
    super(Buffer.alloc(0), format);
  }

  override get length(): number {
    return this.size;
  }

  override need(offset: number, size: number, what: string): void {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(size) || offset < 0 || size < 0) {
      throw malformed(this.format, `${what} at an invalid offset`, { offset: String(offset) });
    }
    if (offset + size > this.size) {
      throw malformed(this.format, `${what} runs past the end of the data`, { offset, size });
    }
  }

  private page(n: number): Buffer {
    const cached = this.pages.get(n);
    if (cached !== undefined) return cached;
    let buffer: Buffer;
    if (this.pages.size >= KEPT) {
      const [oldest, reused] = this.pages.entries().next().value as [number, Buffer];
      this.pages.delete(oldest);
      if (oldest === this.currentN) this.currentN = -1;
      buffer = Buffer.from(reused.buffer, reused.byteOffset, PAGE);
    } else {
      // One allocation holds every page; a page missed later reuses the oldest one's bytes.
      this.arena ??= takeScratch();
      buffer = this.arena.subarray(this.pages.size * PAGE, (this.pages.size + 1) * PAGE);
    }
    const want = Math.min(PAGE, this.size - n * PAGE);
    if (readSync(this.fd, buffer, 0, want, this.base + n * PAGE) !== want)
      throw malformed(this.format, 'the file is shorter than its entry');
    const page = buffer.subarray(0, want);
    this.pages.set(n, page);
    return page;
  }

  /** The checked bytes [offset, offset + size): a view while they lie in one page, else a copy. */
  private view(offset: number, size: number, what: string): Buffer {
    this.need(offset, size, what);
    if (size === 0) return Buffer.alloc(0);
    const first = Math.floor(offset / PAGE);
    if (Math.floor((offset + size - 1) / PAGE) === first) {
      const start = offset - first * PAGE;
      return this.page(first).subarray(start, start + size);
    }
    const out = Buffer.allocUnsafe(size);
    for (let done = 0; done < size;) {
      const at = offset + done;
      const n = Math.floor(at / PAGE);
      done += this.page(n).copy(out, done, at - n * PAGE);
    }
    return out;
  }

  /** Gives the pages' memory back for reuse (a later read takes another buffer). */
  release(): void {
    const arena = this.arena;
    if (arena === null) return;
    this.arena = null;
    this.pages.clear();
    this.current = Buffer.alloc(0);
    this.currentN = -1;
    giveBackScratch(arena);
  }

  /** The page holding [offset, offset + size) and where in it they start, or null across pages. */
  private within(offset: number, size: number, what: string): number {
    this.need(offset, size, what);
    const n = Math.floor(offset / PAGE);
    if (n !== this.currentN) {
      this.current = this.page(n);
      this.currentN = n;
    }
    const start = offset - n * PAGE;
    return start + size <= this.current.length ? start : -1;
  }

  override u8(offset: number, what = 'byte'): number {
    const at = this.within(offset, 1, what);
    return this.current[at]!;
  }

  override u16(offset: number, what = 'u16'): number {
    const at = this.within(offset, 2, what);
    return at >= 0 ? this.current.readUInt16LE(at) : this.view(offset, 2, what).readUInt16LE(0);
  }

  override u32(offset: number, what = 'u32'): number {
    const at = this.within(offset, 4, what);
    return at >= 0 ? this.current.readUInt32LE(at) : this.view(offset, 4, what).readUInt32LE(0);
  }

  override i32(offset: number, what = 'i32'): number {
    const at = this.within(offset, 4, what);
    return at >= 0 ? this.current.readInt32LE(at) : this.view(offset, 4, what).readInt32LE(0);
  }

  /** A copy (pages are reused, so no view of them outlives the call). */
  override slice(offset: number, size: number, what = 'bytes'): Buffer {
    return Buffer.from(this.view(offset, size, what));
  }

  override text(encoding: 'utf8' | 'utf16le' | 'latin1', start: number, end: number): string {
    return this.view(start, end - start, 'text').toString(encoding);
  }
}

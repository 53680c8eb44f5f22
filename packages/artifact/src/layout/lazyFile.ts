import { Buffer } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Makes `[offset, offset + length)` of a lazily loaded file present in its buffer. */
export type Ensure = (offset: number, length: number) => void;

const CHUNK_SHIFT = 16; // 64 KiB

/**
 * A file presented as one file-sized buffer whose chunks are read on first use. The buffer is
 * allocated zero-filled (the host maps such memory lazily), so only the headers and tables a parser
 * touches are ever read and paged in — a layout of a 100 MB library reads a few megabytes.
 */
export class LazyFile {
  readonly bytes: Buffer;
  private readonly path: string;
  private fd: number | null;
  private readonly loaded: Uint8Array;

  private constructor(path: string, fd: number, size: number) {
    this.path = path;
    this.fd = fd;
    this.bytes = Buffer.alloc(size);
    this.loaded = new Uint8Array((size >>> CHUNK_SHIFT) + 1);
  }

  /** Opens `path` for lazy reading; the caller closes it (reads after close reopen the file). */
  static open(path: string): LazyFile {
    const fd = openSync(path, 'r');
    try {
      return new LazyFile(path, fd, fstatSync(fd).size);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Loads every missing chunk overlapping `[offset, offset + length)` (clamped to the file). */
  readonly ensure: Ensure = (offset, length) => {
    const size = this.bytes.length;
    if (length <= 0 || offset >= size || offset < 0) return;
    const first = offset >>> CHUNK_SHIFT;
    const last = (Math.min(size, offset + length) - 1) >>> CHUNK_SHIFT;
    let chunk = first;
    while (chunk <= last) {
      if (this.loaded[chunk]) {
        chunk += 1;
        continue;
      }
      // Coalesce a run of missing chunks into one read.
      let end = chunk;
      while (end + 1 <= last && !this.loaded[end + 1]) end += 1;
      const start = chunk << CHUNK_SHIFT;
      const stop = Math.min(size, (end + 1) << CHUNK_SHIFT);
      this.read(start, stop - start);
      this.loaded.fill(1, chunk, end + 1);
      chunk = end + 1;
    }
  };

  private read(position: number, length: number): void {
    const reopened = this.fd === null;
    const fd = this.fd ?? openSync(this.path, 'r');
    try {
      let done = 0;
      while (done < length) {
        const n = readSync(fd, this.bytes, position + done, length - done, position + done);
        if (n === 0) break; // the file shrank: the rest stays zero
        done += n;
      }
    } finally {
      if (reopened) closeSync(fd);
    }
  }

  /** Closes the descriptor. Later `ensure` calls reopen the file for each missing range. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

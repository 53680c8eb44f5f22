import { Buffer } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { freshRegion } from './source.js';
import type { ByteSource, Region } from './source.js';

const CHUNK = 1 << 16;
/** Regions at most this large are served from cached 64 KiB chunks; larger ones are read exactly. */
const SMALL = 4096;

/**
 * A file read on demand: small reads (header fields) come from cached 64 KiB chunks, tables are read
 * exactly once into buffers of their own size. Nothing file-sized is allocated, so a layout of a
 * 100 MB library reads and holds a few megabytes.
 */
export class LazyFile implements ByteSource {
  readonly length: number;
  private readonly path: string;
  private fd: number | null;
  private readonly chunks = new Map<number, Region>();
  private readonly tables = new Map<string, Region>();

  private constructor(path: string, fd: number, size: number) {
    this.path = path;
    this.fd = fd;
    this.length = size;
  }

  /** Opens `path`; the caller closes it (reads after close reopen the file for each read). */
  static open(path: string): LazyFile {
    const fd = openSync(path, 'r');
    try {
      return new LazyFile(path, fd, fstatSync(fd).size);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  region(offset: number, length: number): Region {
    const first = Math.floor(offset / CHUNK);
    if (length <= SMALL && Math.floor((offset + Math.max(length, 1) - 1) / CHUNK) === first) {
      let chunk = this.chunks.get(first);
      if (!chunk) {
        const start = first * CHUNK;
        chunk = freshRegion(this.read(start, Math.min(CHUNK, this.length - start)), start);
        this.chunks.set(first, chunk);
      }
      return chunk;
    }
    const key = `${offset}:${length}`;
    let table = this.tables.get(key);
    if (!table) {
      table = freshRegion(this.read(offset, Math.min(length, this.length - offset)), offset);
      // Tables are cached while parsing; later reads (readAt after close) are not retained.
      if (this.fd !== null) this.tables.set(key, table);
    }
    return table;
  }

  private read(position: number, length: number): Buffer {
    // Not zero-filled up front: every byte is read, or zeroed below when the file comes up short.
    const out = Buffer.allocUnsafe(Math.max(0, length));
    const reopened = this.fd === null;
    const fd = this.fd ?? openSync(this.path, 'r');
    try {
      let done = 0;
      while (done < out.length) {
        const n = readSync(fd, out, done, out.length - done, position + done);
        if (n === 0) break; // the file shrank: the rest reads as zeros
        done += n;
      }
      out.fill(0, done);
    } finally {
      if (reopened) closeSync(fd);
    }
    return out;
  }

  /** Closes the descriptor and drops cached table buffers (chunks stay for later `readAt`). */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.tables.clear();
  }
}

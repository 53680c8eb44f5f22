// The SHA-256 of a whole archive, hashed a megabyte at a time by the thread that walks its entries
// whenever that walk would otherwise wait for its digest workers: the file is hashed on time the
// walk leaves idle, beside the workers rather than after them.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const CHUNK = 1 << 20;

/** A whole file's SHA-256, computed in steps. */
export class WholeFileHasher {
  private readonly sha = createHash('sha256');
  private readonly buffer = Buffer.allocUnsafe(CHUNK);
  private position = 0;
  private fd: number | null;
  private failed = false;

  private constructor(
    fd: number,
    private readonly size: number,
  ) {
    this.fd = fd;
  }

  /** Opens `path`, or null when it cannot be opened (the caller then hashes it the ordinary way). */
  static open(path: string): WholeFileHasher | null {
    let fd: number | null = null;
    try {
      fd = openSync(path, 'r');
      return new WholeFileHasher(fd, fstatSync(fd).size);
    } catch {
      if (fd !== null) closeSync(fd);
      return null;
    }
  }

  /** Hashes the next megabyte; false once the whole file is hashed (or could not be read). */
  step(): boolean {
    if (this.fd === null) return false;
    try {
      const read = readSync(this.fd, this.buffer, 0, Math.min(CHUNK, this.size - this.position), this.position);
      if (read === 0) {
        this.close();
        return false;
      }
      this.sha.update(this.buffer.subarray(0, read));
      this.position += read;
      return true;
    } catch {
      this.failed = true;
      this.close();
      return false;
    }
  }

  /** The hex digest once every step is done, or null when the file could not be read whole. */
  digest(): string | null {
    if (this.fd !== null || this.failed || this.position < this.size) return null;
    return this.sha.digest('hex');
  }

  /** Closes the file (hashing stops). */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

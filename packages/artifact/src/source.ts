import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

/** Random access to the bytes of a container: a file on disk or a buffer held in memory. */
export interface ByteSource {
  readonly size: number;
  /** Exactly `length` bytes at `offset`, or fewer at the end of the source. */
  read(offset: number, length: number): Promise<Buffer>;
  /** A stream of bytes [start, end). */
  stream(start: number, end: number): Readable;
  close(): Promise<void>;
}

const CHUNK = 1 << 20;

/** A source over a buffer. */
export function bufferSource(buffer: Buffer): ByteSource {
  return {
    size: buffer.length,
    read: (offset, length) => Promise.resolve(buffer.subarray(offset, Math.min(buffer.length, offset + length))),
    stream: (start, end) => Readable.from([buffer.subarray(start, end)], { objectMode: false }),
    close: () => Promise.resolve(),
  };
}

/** A source over an open file; the caller closes it. */
export async function fileSource(path: string): Promise<ByteSource> {
  const handle: FileHandle = await open(path, 'r');
  const { size } = await handle.stat();
  let block: Buffer = Buffer.alloc(0);
  let blockStart = 0;
  const readExactly = async (offset: number, length: number): Promise<Buffer> => {
    const want = Math.max(0, Math.min(length, size - offset));
    const buffer = Buffer.allocUnsafe(want);
    let done = 0;
    while (done < want) {
      const { bytesRead } = await handle.read(buffer, done, want - done, offset + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done === want ? buffer : buffer.subarray(0, done);
  };
  return {
    size,
    async read(offset, length) {
      // Small sequential reads (ASAR entries, headers) are served from one cached 1 MiB block.
      if (length <= CHUNK && offset >= blockStart && offset + length <= blockStart + block.length) {
        return block.subarray(offset - blockStart, offset + length - blockStart);
      }
      if (length <= CHUNK / 2 && offset < size) {
        const loaded = await readExactly(offset, Math.min(CHUNK, size - offset));
        block = loaded;
        blockStart = offset;
        return loaded.subarray(0, Math.min(length, loaded.length));
      }
      return readExactly(offset, length);
    },

    stream(start, end) {
      // Positional reads on the shared handle: many entry streams, one descriptor, closed by the owner.
      let position = start;
      return new Readable({
        highWaterMark: CHUNK,
        read() {
          if (position >= end) {
            this.push(null);
            return;
          }
          const want = Math.min(CHUNK, end - position);
          handle.read(Buffer.allocUnsafe(want), 0, want, position).then(
            ({ bytesRead, buffer }) => {
              if (bytesRead === 0) {
                this.destroy(new Error('unexpected end of file'));
                return;
              }
              position += bytesRead;
              this.push(buffer.subarray(0, bytesRead));
            },
            (error: Error) => this.destroy(error),
          );
        },
      });
    },
    close: () => handle.close(),
  };
}

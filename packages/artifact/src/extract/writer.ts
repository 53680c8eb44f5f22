import { createWriteStream, mkdirSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { dirname, join, resolve, sep } from 'node:path';
import { Buffer } from 'node:buffer';
import { unsafePath } from '../errors.js';

/** Longest absolute path the file system accepts, in bytes, less its terminating NUL. */
const PATH_MAX_BYTES = 4095;

/** One file being written: chunks in, then committed (renamed into place) or aborted. */
export interface StagedFile {
  write(chunk: Buffer): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Writes files under a fresh output directory. Every file is written to a staging file outside the
 * output directory and renamed into place only when complete, so no partial file is ever presented.
 * The writer never creates symlinks, so no path it writes can be redirected outward.
 */
export class StagedWriter {
  private counter = 0;
  private readonly made = new Set<string>();

  constructor(
    readonly root: string,
    private readonly staging: string,
  ) {
    this.made.add(root);
  }

  /**
   * The absolute destination of a logical path, refusing anything that would leave the root, and a
   * destination longer than PATH_MAX allows (`path-too-long`, with the room left under the root).
   */
  destination(path: string): string {
    const target = resolve(this.root, ...path.split('/'));
    if (!target.startsWith(this.root + sep)) throw unsafePath(path, 'parent-segment');
    const bytes = Buffer.byteLength(target);
    if (bytes > PATH_MAX_BYTES) {
      const room = PATH_MAX_BYTES - Buffer.byteLength(this.root) - 1;
      throw unsafePath(path, 'path-too-long', { limit: room, observed: Buffer.byteLength(path) });
    }
    return target;
  }

  private ensure(directory: string): void {
    if (this.made.has(directory)) return;
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    for (let at = directory; at.startsWith(this.root) && !this.made.has(at); at = dirname(at)) this.made.add(at);
  }

  /** Creates the directory for a logical path (and its parents). */
  directory(path: string): void {
    this.ensure(this.destination(path));
  }

  /**
   * Opens a staged file. A file that arrives in one chunk is written with one call (the common case of
   * small entries); a larger one is streamed. `commit` renames it into place.
   */
  open(path: string, executable: boolean): StagedFile {
    const target = this.destination(path);
    this.ensure(dirname(target));
    this.counter += 1;
    const temp = join(this.staging, `${this.counter}.partial`);
    const mode = executable ? 0o700 : 0o600;
    let pending: Buffer | null = null;
    let stream: WriteStream | null = null;
    let failed: Error | null = null;
    const startStream = async (): Promise<WriteStream> => {
      const opened = createWriteStream(temp, { flags: 'wx', mode, highWaterMark: 1 << 20 });
      opened.on('error', (error) => {
        failed = error;
      });
      await once(opened, 'open');
      return opened;
    };
    const push = async (s: WriteStream, chunk: Buffer): Promise<void> => {
      if (failed) throw failed;
      if (!s.write(chunk)) await once(s, 'drain');
    };
    return {
      async write(chunk) {
        if (stream === null && pending === null) {
          pending = chunk;
          return;
        }
        if (stream === null) {
          stream = await startStream();
          await push(stream, pending!);
          pending = null;
        }
        await push(stream, chunk);
      },
      async commit() {
        if (stream === null) {
          await writeFile(temp, pending ?? Buffer.alloc(0), { flag: 'wx', mode });
          await rename(temp, target);
          return;
        }
        const s: WriteStream = stream;
        s.end();
        if (!s.writableFinished) await once(s, 'finish');
        if (failed) throw failed;
        await rename(temp, target);
      },
      async abort() {
        const s: WriteStream | null = stream;
        s?.destroy();
        await rm(temp, { force: true });
      },
    };
  }
}

import { writeFile as writeFileCallback } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { Buffer } from 'node:buffer';
import { unsafePath } from '../errors.js';

/** Longest absolute path the file system accepts, in bytes, less its terminating NUL. */
const PATH_MAX_BYTES = 4095;

/** One file being written: chunks in, then committed (complete) or aborted (removed). */
export interface OutputFile {
  write(chunk: Buffer): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Writes files under a fresh output directory that this call created and that nothing presents until
 * every file is complete (on any failure the caller removes the whole directory). Each file is created
 * exclusively (`wx`: never through an existing name or link), so a file that fails half-written is
 * this writer's own and is removed by `abort`. The writer never creates symlinks, so no path it writes
 * can be redirected outward. Folders are made asynchronously, each once.
 */
export class OutputWriter {
  private readonly made = new Map<string, Promise<void>>();

  constructor(readonly root: string) {
    this.made.set(root, Promise.resolve());
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

  /** Makes `directory` (under the root) once; its parents are made first, each once too. */
  private ensure(directory: string): Promise<void> {
    const known = this.made.get(directory);
    if (known !== undefined) return known;
    const parent = dirname(directory);
    const made = (parent.startsWith(this.root) ? this.ensure(parent) : Promise.resolve()).then(async () => {
      await mkdir(directory, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    });
    // A failure is reported by the file that needed the folder; the promise is not left unhandled.
    made.catch(() => undefined);
    this.made.set(directory, made);
    return made;
  }

  /** Creates the directory for a logical path (and its parents). */
  async directory(path: string): Promise<void> {
    await this.ensure(this.destination(path));
  }

  /**
   * Opens an output file. A file that arrives in one chunk (the common case of small entries) is
   * created, written and closed in one call at commit; a larger one is created at its second chunk
   * and streamed.
   */
  open(path: string, executable: boolean): OutputFile {
    const target = this.destination(path);
    const folder = this.ensure(dirname(target));
    const mode = executable ? 0o700 : 0o600;
    let pending: Buffer | null = null;
    let handle: FileHandle | null = null;
    let created = false;
    const create = async (): Promise<FileHandle> => {
      await folder;
      const opened = await open(target, 'wx', mode);
      created = true;
      return opened;
    };
    const writeAll = async (h: FileHandle, chunk: Buffer): Promise<void> => {
      for (let done = 0; done < chunk.length;) done += (await h.write(chunk, done, chunk.length - done)).bytesWritten;
    };
    return {
      async write(chunk) {
        if (handle === null && pending === null) {
          pending = chunk;
          return;
        }
        if (handle === null) {
          handle = await create();
          await writeAll(handle, pending!);
          pending = null;
        }
        await writeAll(handle, chunk);
      },
      async commit() {
        if (handle === null) {
          // One chunk (or none): created, written and closed in one call, without a file handle object.
          await folder;
          const data = pending ?? Buffer.alloc(0);
          pending = null;
          await new Promise<void>((resolve, reject) =>
            writeFileCallback(target, data, { flag: 'wx', mode }, (error) => {
              // Only a name that already existed was not this writer's to remove.
              if (error && (error as NodeJS.ErrnoException).code !== 'EEXIST') created = true;
              return error ? reject(error) : resolve();
            }),
          );
          return;
        }
        const h = handle;
        handle = null;
        await h.close();
      },
      async abort() {
        const h: FileHandle | null = handle;
        handle = null;
        await h?.close().catch(() => undefined);
        if (created) await rm(target, { force: true });
      },
    };
  }
}

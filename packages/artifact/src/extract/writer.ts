import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
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
 * can be redirected outward. Folders are made once each.
 */
export class OutputWriter {
  /** Folders made (or found) under the root, and why a folder could not be made. */
  private readonly made = new Set<string>();
  private readonly failed = new Map<string, unknown>();

  constructor(readonly root: string) {
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

  /**
   * Makes `directory` (under the root) once, its parents first, synchronously: one system call each,
   * without a thread-pool round trip. A folder that could not be made fails every file that needs it.
   */
  private ensure(directory: string): void {
    if (this.made.has(directory)) return;
    const failure = this.failed.get(directory);
    if (failure !== undefined) throw failure;
    try {
      const parent = dirname(directory);
      if (parent !== directory && parent.startsWith(this.root)) this.ensure(parent);
      try {
        mkdirSync(directory, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    } catch (error) {
      this.failed.set(directory, error);
      throw error;
    }
    this.made.add(directory);
  }

  /** Creates the directory for a logical path (and its parents). */
  directory(path: string): void {
    this.ensure(this.destination(path));
  }

  /**
   * Opens an output file. A file that arrives in one chunk (the common case of small entries) is
   * created, written and closed at commit, synchronously; a larger one is created at its second chunk
   * and streamed.
   */
  open(path: string, executable: boolean): OutputFile {
    const target = this.destination(path);
    const folder = dirname(target);
    const mode = executable ? 0o700 : 0o600;
    let pending: Buffer | null = null;
    let handle: FileHandle | null = null;
    let created = false;
    const ensureFolder = (): void => this.ensure(folder);
    const create = async (): Promise<FileHandle> => {
      ensureFolder();
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
          // One chunk (or none): created, written and closed synchronously (three system calls, no
          // file handle object and no thread-pool round trips); a chunk is at most about a megabyte.
          ensureFolder();
          const data = pending ?? Buffer.alloc(0);
          pending = null;
          const fd = openSync(target, 'wx', mode);
          created = true;
          try {
            for (let done = 0; done < data.length;) done += writeSync(fd, data, done, data.length - done);
          } finally {
            closeSync(fd);
          }
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

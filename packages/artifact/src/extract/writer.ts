import { createWriteStream } from 'node:fs';
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { dirname, join, resolve, sep } from 'node:path';
import { unsafePath } from '../errors.js';

/**
 * Writes files under a fresh output directory. Every file is streamed to a staging file outside the
 * output directory and renamed into place only when complete, so no partial file is ever presented.
 * The writer never creates symlinks, so no path it writes can be redirected outward.
 */
export class StagedWriter {
  private counter = 0;
  private readonly made = new Set<string>();

  constructor(
    readonly root: string,
    private readonly staging: string,
  ) {}

  /** The absolute destination of a logical path, refusing anything that would leave the root. */
  destination(path: string): string {
    const target = resolve(this.root, ...path.split('/'));
    if (!target.startsWith(this.root + sep)) throw unsafePath(path, 'parent-segment');
    return target;
  }

  /** Creates the directory for a logical path (and its parents). */
  async directory(path: string): Promise<void> {
    const target = this.destination(path);
    if (this.made.has(target)) return;
    await mkdir(target, { recursive: true, mode: 0o700 });
    this.made.add(target);
  }

  /** Opens a staging file; `commit` renames it into place, `abort` removes it. */
  async open(
    path: string,
    executable: boolean,
  ): Promise<{
    write(chunk: Buffer): Promise<void>;
    commit(): Promise<void>;
    abort(): Promise<void>;
  }> {
    const target = this.destination(path);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    this.counter += 1;
    const temp = join(this.staging, `${this.counter}.partial`);
    const stream = createWriteStream(temp, { flags: 'wx', mode: 0o600, highWaterMark: 1 << 20 });
    await once(stream, 'open');
    let failed: Error | null = null;
    stream.on('error', (error) => {
      failed = error;
    });
    const finish = async (): Promise<void> => {
      stream.end();
      if (!stream.writableFinished) await once(stream, 'finish');
      if (failed) throw failed;
    };
    return {
      async write(chunk) {
        if (failed) throw failed;
        if (!stream.write(chunk)) await once(stream, 'drain');
      },
      async commit() {
        await finish();
        if (executable) await chmod(temp, 0o700);
        await rename(temp, target);
      },
      async abort() {
        stream.destroy();
        await rm(temp, { force: true });
      },
    };
  }
}

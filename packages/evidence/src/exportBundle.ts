import { createHash, randomBytes } from 'node:crypto';
import { open, rename, stat, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { BUNDLE_HEAD, BUNDLE_TAIL } from './bundleFormat.js';
import { writeCanonicalBytes } from './canonicalBytes.js';
import { replaceableDestination } from './destination.js';
import { fileSystemError } from './fsErrors.js';
import { ReaError, isReaError, normalizeError } from './reaError.js';
import type { EvidenceRecord } from './evidence.js';

/** Options for {@link exportBundle}. */
export interface ExportBundleOptions {
  /** Stops serialization between records and writes; the staging file is removed and nothing is published. */
  signal?: AbortSignal;
  /** Called after each record is written, with the records and bytes written so far. */
  onProgress?: (progress: { records: number; bytes: number }) => void;
}

/** What a published bundle holds. */
export interface ExportBundleResult {
  /** Absolute path of the published bundle. */
  path: string;
  record_count: number;
  /** Size of the bundle file in bytes. */
  byte_size: number;
  /** Lowercase hex SHA-256 of the bundle file. */
  sha256: string;
}

const BLOCK = 1 << 20;

/**
 * Packs canonical JSON chunks into 1 MiB buffers, so one record's text is written in few calls. Blocks
 * come back through {@link BlockPacker.recycle} once written: fresh memory for every block would cost
 * a page fault per 4 KiB of the bundle.
 */
class BlockPacker {
  readonly blocks: Buffer[] = [];
  private current: Buffer = Buffer.allocUnsafe(BLOCK);
  private used = 0;
  /** Whole blocks handed out by take() and not recycled yet. */
  private readonly lent: Buffer[] = [];
  private readonly free: Buffer[] = [];

  /** Copies `bytes` (a view the canonical writer reuses) into the current block. */
  addBytes(bytes: Uint8Array): void {
    if (bytes.byteLength > BLOCK - this.used) {
      this.seal();
      if (bytes.byteLength > BLOCK) {
        this.blocks.push(Buffer.from(bytes));
        return;
      }
    }
    this.current.set(bytes, this.used);
    this.used += bytes.byteLength;
  }

  add(text: string): void {
    // UTF-8 needs at most three bytes per UTF-16 code unit.
    if (text.length * 3 > BLOCK - this.used) {
      this.seal();
      if (text.length * 3 > BLOCK) {
        this.blocks.push(Buffer.from(text, 'utf8'));
        return;
      }
    }
    this.used += this.current.write(text, this.used, 'utf8');
  }

  seal(): void {
    if (this.used === 0) return;
    this.blocks.push(this.current.subarray(0, this.used));
    this.lent.push(this.current);
    this.current = this.free.pop() ?? Buffer.allocUnsafe(BLOCK);
    this.used = 0;
  }

  take(): Buffer[] {
    this.seal();
    return this.blocks.splice(0);
  }

  /** Takes back every block handed out by take(); their contents must no longer be needed. */
  recycle(): void {
    this.free.push(...this.lent.splice(0));
  }
}

async function writeAll(handle: FileHandle, blocks: Buffer[], signal: AbortSignal | undefined): Promise<void> {
  for (const block of blocks) {
    let offset = 0;
    while (offset < block.length) {
      if (signal?.aborted) throw cancelled();
      const { bytesWritten } = await handle.write(block, offset, block.length - offset);
      offset += bytesWritten;
    }
  }
}

function cancelled(): ReaError {
  return new ReaError('cancelled', 'The bundle export was cancelled; nothing was published.', {
    details: { phase: 'export', cleanup: 'complete' },
  });
}

async function removeStaging(staging: string, failure: ReaError): Promise<ReaError> {
  try {
    await unlink(staging);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') {
      return new ReaError('cleanup_incomplete', `The export failed and its staging file could not be removed.`, {
        details: {
          remaining: [{ kind: 'file', path: staging }],
          failure: { code: failure.code, message: failure.message },
        },
        cause: failure,
      });
    }
  }
  return failure;
}

/**
 * Streams `records` as a canonical JSON bundle (see {@link BUNDLE_VERSION}) to `destination`.
 *
 * The text goes to a uniquely named staging file `.<name>.<random>.partial` in the destination's
 * folder, is flushed to disk, and is renamed over `destination` in one step: the destination is
 * either untouched or the complete bundle. Records are serialized one at a time and each is written
 * before the next is read, so memory is bounded by the largest record, not the bundle; `records` may
 * be a lazy (async) iterable. On abort (`cancelled`) or any failure the staging file is removed
 * (`cleanup_incomplete` naming it if that fails). Non-JSON values are `invalid_request`; file-system
 * failures are `access_denied`, `not_found` or `execution_failure` with the path. A destination that
 * is a folder, device, FIFO or socket is refused (`invalid_request`), and one that is a symbolic link
 * is written where the link leads (see {@link replaceableDestination}).
 */
export async function exportBundle(
  records: Iterable<EvidenceRecord<unknown>> | AsyncIterable<EvidenceRecord<unknown>>,
  destination: string,
  options: ExportBundleOptions = {},
): Promise<ExportBundleResult> {
  const { signal } = options;
  if (signal?.aborted) throw cancelled();
  const path = replaceableDestination(destination, 'The bundle destination', 'evidence-bundle.json');
  const staging = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}.partial`);
  let handle: FileHandle;
  try {
    handle = await open(staging, 'wx');
  } catch (error) {
    // Said of the destination's folder, which the user chose; the staging file's name is REA's.
    const errno = (error as { code?: unknown }).code;
    // A folder that exists but takes no new file (/proc, /sys) also answers ENOENT.
    const folderExists = await stat(dirname(path)).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (folderExists && errno === 'ENOENT') {
      throw new ReaError('access_denied', `No file can be created in ${dirname(path)} (${errno}).`, {
        details: { reason: 'not-writable', path: dirname(path), errno },
        remediation: 'Choose a destination in a folder where files can be created.',
        cause: error,
      });
    }
    if (errno === 'ENOENT' || errno === 'ENOTDIR') {
      const what = errno === 'ENOENT' ? 'does not exist' : 'is not a folder (a part of its path is a file)';
      throw new ReaError('not_found', `The folder ${dirname(path)} of the bundle destination ${what}.`, {
        details: { reason: 'missing', path: dirname(path), errno },
        remediation: 'Create the folder first, or choose a destination in an existing folder.',
        cause: error,
      });
    }
    throw fileSystemError(error, dirname(path), 'write a bundle into the folder');
  }
  const hash = createHash('sha256');
  const packer = new BlockPacker();
  let byteSize = 0;
  let count = 0;
  const flush = async (): Promise<void> => {
    const blocks = packer.take();
    for (const block of blocks) {
      hash.update(block);
      byteSize += block.length;
    }
    await writeAll(handle, blocks, signal);
    packer.recycle();
  };
  try {
    packer.add(BUNDLE_HEAD);
    for await (const record of records) {
      if (signal?.aborted) throw cancelled();
      if (count > 0) packer.add(',');
      writeCanonicalBytes(record, (bytes) => packer.addBytes(bytes));
      count += 1;
      await flush();
      options.onProgress?.({ records: count, bytes: byteSize });
    }
    packer.add(BUNDLE_TAIL);
    await flush();
    if (signal?.aborted) throw cancelled();
    await handle.sync();
    await handle.close();
    if (signal?.aborted) throw cancelled();
    await rename(staging, path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    // Node's file-system errors name their system call; anything else came from the records' source.
    const fromFileSystem = typeof error === 'object' && error !== null && 'syscall' in error;
    const failure = isReaError(error)
      ? error
      : fromFileSystem
        ? fileSystemError(error, path, 'write the bundle')
        : normalizeError(error);
    throw await removeStaging(staging, failure);
  }
  await syncDirectory(dirname(path));
  return { path, record_count: count, byte_size: byteSize, sha256: hash.digest('hex') };
}

// Makes the rename durable. Best effort: some platforms and file systems refuse to open folders.
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The bundle is published either way; durability of the folder entry is the platform's.
  }
}

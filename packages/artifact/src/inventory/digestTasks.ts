import type { ZipEntryInfo } from '../engine/zip.js';
import type { DigestTask } from '../engine/digestMessages.js';

/** When worker threads inflate and hash: an archive whose small entries hold at least this many compressed bytes. */
export const digestWorkerThreshold = { bytes: 16 << 20 };

/** Longest symlink target an inventory reads. */
export const MAX_LINK_BYTES = 4096;

/**
 * The entries of a ZIP that worker threads may read, inflate and hash ahead of the inventory walk
 * (stored or deflated files and links, with what to keep of them), or none when the archive
 * is too small for workers to pay for their start.
 */
export function digestWorkerTasks(infos: readonly ZipEntryInfo[], maxNestedBytes: number): DigestTask[] {
  const tasks = digestWorkerTasksIn(infos, 0, infos.length, maxNestedBytes);
  const bytes = tasks.reduce((sum, task) => sum + task.compressedSize, 0);
  return bytes >= digestWorkerThreshold.bytes ? tasks : [];
}

/** The worker tasks of the entries at walk positions [from, to) of `infos` (see {@link digestWorkerTasks}). */
export function digestWorkerTasksIn(
  infos: readonly ZipEntryInfo[],
  from: number,
  to: number,
  maxNestedBytes: number,
): DigestTask[] {
  const tasks: DigestTask[] = [];
  for (let index = from; index < to; index += 1) {
    const info = infos[index]!;
    if (info.kind !== 'file' && info.kind !== 'symlink') continue;
    if (info.encrypted || (info.compressionMethod !== 0 && info.compressionMethod !== 8)) continue;
    if (info.kind === 'symlink' && info.uncompressedSize > MAX_LINK_BYTES) continue;
    const link = info.kind === 'symlink';
    tasks.push({
      index,
      offset: info.localHeaderOffset,
      nameLength: info.nameLength,
      compressedSize: info.compressedSize,
      uncompressedSize: info.uncompressedSize,
      method: info.compressionMethod,
      // What the walk does not ask to keep (an unsafe path, a later budget) it drops.
      collectUpTo: link ? MAX_LINK_BYTES : maxNestedBytes,
      collectAny: link,
    });
  }
  return tasks;
}

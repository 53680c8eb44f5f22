import { closeSync, constants, createReadStream, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ReaError, canonicalSha256Async, fileSystemError, throwIfAborted } from '@rea/evidence';
import type { Coverage, Limitation } from '@rea/evidence';
import { hashSmallFileSync } from '@rea/provider-kit';
import { containerFromHead, fileTypeFromHead, holdsZipAtEnd, tailIsDmg } from '../detect.js';
import { assertDmgCapable, withMountedDmg } from '../engine/dmg.js';
import { digestStream } from '../hashing.js';
import { resolveBudgets } from '../options.js';
import type { InspectOptions } from '../options.js';
import type { ArtifactInventory, ContainerFormat, PackageType } from '../schemas.js';
import { InventoryState } from './state.js';
import type { NestedExpander } from './state.js';
import type { WholeFileDigest } from './zip.js';

/** Archive formats told by their magic that are listed as one file, their contents unread. */
const UNEXPANDED_ARCHIVES = new Set(['gzip', 'xz', 'bzip2', '7z', 'rar', 'zstd', 'tar', 'ar']);

/**
 * The container readers (ZIP with its library and worker pool, ASAR, directories) load when the artifact
 * is or holds a container: inventorying a plain file (an executable, a library) does not load them.
 */
const containers = async () => {
  // One at a time: they share modules, and a sequence loads them in a predictable order.
  const { inventoryZip } = await import('./zip.js');
  const { inventoryAsar } = await import('./asar.js');
  const { bufferSource, fileSource } = await import('../source.js');
  const { bundleType, inventoryDirectory } = await import('./directory.js');
  return { inventoryZip, inventoryAsar, bufferSource, fileSource, bundleType, inventoryDirectory };
};

/** The result of inspecting one artifact: identity, complete inventory, coverage and limitations. */
export interface InspectOutcome {
  subject: { format: ContainerFormat; sha256: string; size: number };
  inventory: ArtifactInventory;
  coverage: Coverage;
  limitations: Limitation[];
}

const expandNested: NestedExpander = async (state, bytes, format, prefix, depth, companion) => {
  const { inventoryZip, inventoryAsar, bufferSource } = await containers();
  if (format === 'zip') await inventoryZip(state, bytes, prefix, depth);
  else await inventoryAsar(state, bufferSource(bytes), companion, prefix, depth);
};

/**
 * The file's first 512 bytes and last 64 KiB, read with synchronous calls (two small reads; a trip through
 * the thread pool for each would cost more than the reads). Opened without waiting, so that a FIFO put in
 * the file's place is not waited on.
 */
function headAndTail(path: string, size: number): { head: Buffer; tail: Buffer } {
  const descriptor = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const head = Buffer.alloc(Math.min(512, size));
    readSync(descriptor, head, 0, head.length, 0);
    const tailLength = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLength);
    readSync(descriptor, tail, 0, tailLength, size - tailLength);
    return { head, tail };
  } finally {
    closeSync(descriptor);
  }
}

async function wholeFileSha256(path: string, signal: AbortSignal | undefined): Promise<string> {
  return (await digestStream(createReadStream(path, { highWaterMark: 1 << 20 }), { signal })).sha256;
}

/**
 * Inventories the artifact at `path`: detects its format by content, lists every entry with its
 * streamed SHA-256, checks declared integrity under the policy, and expands nested containers within
 * the budgets. Typed errors: `not_found`, `access_denied`, `unsupported_target` (malformed containers),
 * `artifact_integrity_mismatch` (fail-closed), `capability_unavailable` (DMG off macOS without a named hdiutil), `execution_failure` (DMG attach
 * refused), `provider_timeout`, `cleanup_incomplete` (a DMG left attached), `cancelled`.
 */
export async function inspect(path: string, options: InspectOptions = {}): Promise<InspectOutcome> {
  const budgets = resolveBudgets(options.budgets);
  const policy = options.integrityPolicy ?? 'fail-closed';
  const state = new InventoryState(policy, budgets, options.signal, expandNested, options.onProgress);
  let info: Stats;
  try {
    info = statSync(path);
  } catch (error) {
    throw fileSystemError(error, path, 'read');
  }
  throwIfAborted(options.signal, 'start');
  let format: ContainerFormat;
  let packageType: PackageType | null = null;
  let fileType: string | null = null;
  let sha256: string;
  let size = info.size;
  if (info.isDirectory()) {
    format = 'directory';
    const { bundleType, inventoryDirectory } = await containers();
    packageType = await bundleType(path);
    await inventoryDirectory(state, path, '', 0);
    size = state.entries.reduce((sum, e) => sum + (e.kind === 'file' ? e.size : 0), 0);
    sha256 = await canonicalSha256Async(
      state.entries.map((e) => [e.path, e.kind, e.sha256, e.symlink_target]),
      { signal: options.signal },
    );
  } else if (info.isFile()) {
    let head: Buffer;
    let tail: Buffer;
    try {
      ({ head, tail } = headAndTail(path, info.size));
    } catch (error) {
      throw fileSystemError(error, path, 'read');
    }
    const detected = containerFromHead(head) ?? (holdsZipAtEnd(path, info.size, head, tail) ? 'zip' : null);
    if (detected === 'zip') {
      format = 'zip';
      // A large archive's workers hash the whole file too; otherwise it is hashed here, after.
      const whole: WholeFileDigest = {};
      const { inventoryZip } = await containers();
      packageType = await inventoryZip(state, path, '', 0, whole);
      sha256 = whole.sha256 ?? (await wholeFileSha256(path, options.signal));
    } else if (detected === 'asar') {
      format = 'asar';
      const { inventoryAsar, fileSource } = await containers();
      const source = await fileSource(path);
      try {
        const companion = await stat(`${path}.unpacked`).then(
          (s) => (s.isDirectory() ? `${path}.unpacked` : null),
          () => null,
        );
        [sha256] = await Promise.all([
          wholeFileSha256(path, options.signal),
          inventoryAsar(state, source, companion, '', 0),
        ]);
      } finally {
        await source.close();
      }
    } else if (tailIsDmg(tail)) {
      format = 'dmg';
      const platform = options.platform ?? process.platform;
      assertDmgCapable(platform, options.dmg);
      sha256 = await wholeFileSha256(path, options.signal);
      const { inventoryDirectory } = await containers();
      await withMountedDmg(
        path,
        options.signal,
        (mount) => inventoryDirectory(state, mount, '', 0),
        options.dmg,
        options.supervisor,
      );
    } else {
      format = 'file';
      fileType = fileTypeFromHead(head);
      if (UNEXPANDED_ARCHIVES.has(fileType)) {
        state.limitations.push({
          kind: 'archive-not-expanded',
          message: `${basename(path)} is ${fileType === 'ar' || fileType === 'xz' ? 'an' : 'a'} ${fileType} archive, which inspect_artifact does not open (it opens ZIP-based packages, ASAR, DMG and folders): it is listed as one file, and what it holds was not listed or hashed.`,
        });
      }
      // The size is what was read and hashed: a file of /proc or /sys states another (0, or a page). A
      // small file is read at once (see @rea/provider-kit's hashSmallFileSync), a larger one streamed.
      // A read that fails (EIO from a file of /proc) is typed by the caller, as the streamed read's is.
      const small = hashSmallFileSync(path);
      if (small !== null) {
        throwIfAborted(options.signal, 'hashing');
        sha256 = small.sha256;
        size = small.bytesRead;
      } else {
        const digest = await digestStream(createReadStream(path, { highWaterMark: 1 << 20 }), {
          signal: options.signal,
        });
        sha256 = digest.sha256!;
        size = digest.size;
      }
      state.add({
        path: basename(path),
        kind: 'file',
        size,
        compressed_size: null,
        mode: info.mode,
        symlink_target: null,
        unpacked: false,
        sha256,
        integrity: 'undeclared',
        nested_format: null,
      });
    }
  } else {
    throw new ReaError('unsupported_target', `${path} is neither a regular file nor a directory.`, {
      details: { path, format: 'special', reason: 'not-a-file' },
      remediation: 'Pass a regular file or a directory: a device, FIFO or socket has no bytes to inventory.',
    });
  }
  throwIfAborted(options.signal, 'inventory');
  state.flagLinkChains();
  const inventory: ArtifactInventory = {
    view: 'complete',
    format,
    package_type: packageType,
    file_type: fileType,
    integrity_policy: policy,
    budgets,
    entry_count: state.entries.length,
    file_count: state.entries.filter((e) => e.kind === 'file').length,
    total_size: state.entries.reduce((sum, e) => sum + (e.kind === 'file' ? e.size : 0), 0),
    entries: state.entries,
    integrity_contradictions: state.contradictions,
    nested_containers: state.nested,
  };
  return {
    subject: { format, sha256, size },
    inventory,
    coverage: { status: state.reasons.length > 0 ? 'partial' : 'complete', reasons: state.reasons },
    limitations: state.limitations,
  };
}

import { createReadStream } from 'node:fs';
import type { Stats } from 'node:fs';
import { lstat, readFile, readdir, readlink, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isReaError, throwIfAborted } from '@rea/evidence';
import { containerFromHead } from '../detect.js';
import { digestBuffer, digestStream } from '../hashing.js';
import { nestedPath, symlinkEscapes } from '../paths.js';
import type { ArtifactEntry, PackageType } from '../schemas.js';
import { fileSource } from '../source.js';
import type { InventoryState } from './state.js';
import { inventoryAsar } from './asar.js';
import { inventoryZip } from './zip.js';
import { CHECK_EVERY, runCooperatively } from '../layout/cooperative.js';
import type { Work } from '../layout/cooperative.js';
import { codeUnitOrder, sortInSlices } from '../sortInSlices.js';

/** A folder's names in order (a cancel while they are sorted is `cancelled`, phase "inventory"). */
function* sortedNames(names: string[]): Work<string[]> {
  yield 'inventory';
  return yield* sortInSlices(names, codeUnitOrder);
}

/** Files up to this size are hashed from one read rather than streamed. */
const SMALL_FILE_BYTES = 256 * 1024;

/** Entries of one directory examined ahead of the one being recorded. */
const LOOK_AHEAD = 16;

type Examined = { info: Stats; bytes: Buffer | null };

/**
 * Examines `paths` (lstat, and the bytes of a small regular file) up to {@link LOOK_AHEAD} entries
 * ahead of the one asked for: each examination waits a turn of the file-system thread pool, and one at
 * a time those turns dominate a tree of many small files. Entries are still recorded one by one, in
 * order, under the budgets; a read that fails ahead is read again in order, so it fails there.
 */
function lookAhead(paths: string[]): (index: number) => Promise<Examined> {
  const started: Promise<Examined>[] = [];
  const examine = async (path: string): Promise<Examined> => {
    const info = await lstat(path);
    if (!info.isFile() || info.size > SMALL_FILE_BYTES) return { info, bytes: null };
    return { info, bytes: await readFile(path).catch(() => null) };
  };
  return (index) => {
    for (let i = started.length; i < Math.min(paths.length, index + LOOK_AHEAD); i += 1) {
      const examined = examine(paths[i]!);
      // Awaited in order below; until then a failure must not count as unhandled.
      examined.catch(() => undefined);
      started.push(examined);
    }
    const examined = started[index]!;
    delete started[index];
    return examined;
  };
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** `app-bundle` for a macOS or iOS `.app` directory (identified by its Info.plist), else null. */
export async function bundleType(root: string): Promise<PackageType | null> {
  if (!basename(root).endsWith('.app')) return null;
  const plist = await Promise.all(
    [lstat(join(root, 'Contents', 'Info.plist')), lstat(join(root, 'Info.plist'))].map((p) =>
      p.then(
        () => true,
        () => false,
      ),
    ),
  );
  return plist.some(Boolean) ? 'app-bundle' : null;
}

/** Expands a container file found on disk in place (no copy): ZIP by path, ASAR with its companion. */
async function expandFile(
  state: InventoryState,
  file: string,
  format: 'zip' | 'asar',
  path: string,
  depth: number,
): Promise<void> {
  if (depth + 1 > state.budgets.max_depth) {
    state.nested.push({
      path,
      format,
      expanded: false,
      reason: `depth budget max_depth ${state.budgets.max_depth} reached`,
    });
    state.partial(
      `nested ${format} ${JSON.stringify(path)} was not expanded: depth budget reached`,
      'nested-not-expanded',
      path,
    );
    return;
  }
  try {
    if (format === 'zip') await inventoryZip(state, file, path, depth + 1);
    else {
      const source = await fileSource(file);
      try {
        const companion = (await isDirectory(`${file}.unpacked`)) ? `${file}.unpacked` : null;
        await inventoryAsar(state, source, companion, path, depth + 1);
      } finally {
        await source.close();
      }
    }
    state.nested.push({ path, format, expanded: true, reason: null });
  } catch (error) {
    if (!isReaError(error) || error.code === 'artifact_integrity_mismatch' || error.code === 'cancelled') throw error;
    state.nested.push({ path, format, expanded: false, reason: error.message });
    state.partial(
      `nested ${format} ${JSON.stringify(path)} was not expanded: ${error.message}`,
      'nested-not-expanded',
      path,
    );
  }
}

/**
 * Inventories a directory without following symlinks: files are hashed, symlinks recorded with their
 * targets, containers inside (ZIP, ASAR with `.asar.unpacked`) expanded within the budgets.
 */
export async function inventoryDirectory(
  state: InventoryState,
  root: string,
  prefix: string,
  depth: number,
): Promise<void> {
  const stack: string[] = [''];
  while (stack.length > 0) {
    const relDir = stack.pop()!;
    const listed = await readdir(join(root, relDir));
    // A folder of very many names is sorted in slices, with a turn of the event loop now and then.
    const names =
      listed.length > CHECK_EVERY ? await runCooperatively(sortedNames(listed), state.signal) : listed.sort();
    const subdirs: string[] = [];
    const ahead = lookAhead(names.map((name) => join(root, relDir === '' ? name : `${relDir}/${name}`)));
    for (const [index, name] of names.entries()) {
      throwIfAborted(state.signal, 'inventory');
      const rel = relDir === '' ? name : `${relDir}/${name}`;
      const abs = join(root, rel);
      const { info, bytes } = await ahead(index);
      const path = nestedPath(prefix, rel);
      const entry: ArtifactEntry = {
        path,
        kind: info.isFile() ? 'file' : info.isDirectory() ? 'directory' : info.isSymbolicLink() ? 'symlink' : 'other',
        size: info.isFile() ? info.size : 0,
        compressed_size: null,
        mode: info.mode,
        symlink_target: null,
        unpacked: /\.asar\.unpacked(\/|$)/.test(rel),
        sha256: null,
        integrity: 'undeclared',
        nested_format: null,
      };
      if (entry.kind === 'symlink') {
        entry.symlink_target = await readlink(abs);
        state.link(prefix, 'directory', { path: rel, target: entry.symlink_target, fromRoot: false });
        if (symlinkEscapes(rel, entry.symlink_target)) {
          state.partial(
            `symlink ${JSON.stringify(path)} points outside the directory; it was not followed`,
            'unsafe-path',
            path,
          );
        }
      } else if (entry.kind === 'other') {
        state.partial(
          `entry ${JSON.stringify(path)} is a device or special file; its bytes were not read`,
          'special-file',
          path,
        );
      } else if (entry.kind === 'file') {
        if (!state.mayRead(info.size)) {
          state.partial(
            `byte budget reached at ${JSON.stringify(path)}: max_bytes ${state.budgets.max_bytes}; its bytes were not read`,
            'budget-reached',
            path,
          );
          entry.integrity = 'unchecked';
        } else {
          // A small file is read in one call: a stream would allocate its 1 MiB buffer for every file.
          const digest =
            info.size <= SMALL_FILE_BYTES
              ? await digestBuffer(bytes ?? (await readFile(abs)), { signal: state.signal })
              : await digestStream(createReadStream(abs, { highWaterMark: 1 << 20 }), { signal: state.signal });
          state.bytesRead += digest.size;
          entry.sha256 = digest.sha256;
          entry.size = digest.size;
          entry.nested_format = containerFromHead(digest.head);
        }
      }
      if (!state.add(entry)) return;
      if (entry.kind === 'directory') subdirs.push(rel);
      if (entry.nested_format === 'zip' || entry.nested_format === 'asar') {
        await expandFile(state, abs, entry.nested_format, path, depth);
      }
    }
    for (let i = subdirs.length - 1; i >= 0; i -= 1) stack.push(subdirs[i]!);
  }
}

import { statSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ReaError, fileSystemError } from '@rea/evidence';
import type { ZipEntries } from '@rea/artifact';
import { openDexSections } from '../format/dex/file.js';
import type { DexFile } from '../format/dex/file.js';
import { loadPackage } from '../package/load.js';
import type { LoadedPackage } from '../package/load.js';
import type { EarlyDigest } from '../package/direct.js';

/** Where a class is defined. */
export interface ClassSite {
  dex: number;
  classDef: number;
}

/** A loaded package with its DEX files opened and its classes indexed by descriptor. */
export interface OpenedPackage {
  loaded: LoadedPackage;
  dex: { path: string; file: DexFile }[];
  classes: Map<string, ClassSite>;
  /** DEX files that could not be opened, with why. */
  unreadable: { path: string; message: string }[];
}

let cached: { key: string; value: OpenedPackage } | null = null;

/** True when a read of the regular file at `path` finds no byte; a failing read is left to the load. */
async function isEmpty(path: string): Promise<boolean> {
  const handle = await open(path, 'r').catch(() => null);
  if (handle === null) return false;
  try {
    return (await handle.read(Buffer.alloc(1), 0, 1, 0)).bytesRead === 0;
  } catch {
    return false;
  } finally {
    await handle.close();
  }
}

/**
 * Loads and indexes the package at `path`, reusing the last one when the same file (path, size and
 * modification time) is asked for again; only one package is kept, so memory stays bounded by one.
 * `opened`: the ZIP at `path` opened already; `contentDigests` false: no signature content digest is
 * computed (see {@link loadPackage}). `late`: the package may come back before its digests are computed
 * (`loaded.settled` is then set: the caller awaits it, and opens the package again, not late, when it
 * resolves to false); it is kept for later calls only once they are.
 */
export async function openPackage(
  path: string,
  signal: AbortSignal | undefined,
  opened?: ZipEntries,
  contentDigests = true,
  late: boolean | EarlyDigest = false,
): Promise<OpenedPackage> {
  // A stat of a local path costs microseconds made at once, and a round trip through the thread pool otherwise.
  let info;
  try {
    info = statSync(path);
  } catch (error) {
    // As every tool that takes a path answers it (a permission refused on a folder above it too).
    throw fileSystemError(error, path, 'read');
  }
  // A size of 0 is an empty file, unless reading says otherwise (a /proc file gives its bytes, or fails).
  if (info.isFile() && info.size === 0 && (await isEmpty(path))) {
    throw new ReaError('unsupported_target', `${path} is an empty file.`, {
      details: { path, format: 'empty', reason: 'empty-file' },
      remediation: 'Pass an .apk, .aab, .xapk/.apks, a folder of split APKs, or a .dex file.',
    });
  }
  if (!info.isFile() && !info.isDirectory()) {
    // A FIFO, socket or device: opening one to read it can wait for a writer forever.
    throw new ReaError('unsupported_target', `${path} is neither a regular file nor a directory.`, {
      details: { path, format: 'special', reason: 'not-a-file' },
      remediation: 'Pass an .apk, .aab, .xapk/.apks, a folder of split APKs, or a .dex file.',
    });
  }
  let key = `${path}\0${info.size}\0${info.mtimeMs}\0${info.ino}`;
  if (info.isDirectory()) {
    // A split APK rewritten in place changes the file, not the folder: the key covers each entry.
    for (const name of (await readdir(path).catch(() => [])).sort()) {
      const one = await stat(join(path, name)).catch(() => null);
      key += `\0${name}\0${one?.size}\0${one?.mtimeMs}\0${one?.ino}`;
    }
  }
  if (cached?.key === key) return cached.value;
  cached = null;
  const loaded = await loadPackage(path, signal, opened, contentDigests, late);
  const dex: OpenedPackage['dex'] = [];
  const unreadable: OpenedPackage['unreadable'] = [];
  const classes = new Map<string, ClassSite>();
  for (const unit of loaded.units) {
    for (const file of unit.dex) {
      try {
        for (const section of openDexSections(file.path, file.bytes, { checksum: unit.kind === 'dex' })) {
          const opened = section.file;
          const n = dex.push(section) - 1;
          for (let i = 0; i < opened.classDefs.size; i++) {
            const descriptor = opened.type(opened.classDef(i).classIdx);
            if (!classes.has(descriptor)) classes.set(descriptor, { dex: n, classDef: i });
          }
        }
      } catch (error) {
        unreadable.push({ path: file.path, message: (error as Error).message });
      }
    }
  }
  const value = { loaded, dex, classes, unreadable };
  if (loaded.settled === undefined) cached = { key, value };
  else
    void loaded.settled.then((complete) => {
      if (complete && cached === null) cached = { key, value };
    });
  return value;
}

/** `Lcom/example/Foo;` for `com.example.Foo`, `com/example/Foo` or the descriptor itself. */
export function toDescriptor(name: string): string {
  if (name.startsWith('L') && name.endsWith(';')) return name;
  // A descriptor without its closing semicolon (Lcom/example/Foo): slashes say it is no dotted name.
  if (name.startsWith('L') && name.includes('/') && !name.includes('.')) return `${name};`;
  if (name.startsWith('[')) return name;
  return `L${name.replace(/\./g, '/')};`;
}

/** The class `name` names, or `not_found` listing nothing more than the name. */
export function findClass(pkg: OpenedPackage, name: string): ClassSite & { descriptor: string } {
  const descriptor = toDescriptor(name);
  const site = pkg.classes.get(descriptor);
  if (site === undefined) {
    // DEX files left out (damaged, contradicting their CRC, past a budget) may define it: say which.
    const unread = [
      ...pkg.unreadable.map((u) => `${u.path} (${u.message})`),
      ...pkg.loaded.limitations
        .filter((l) => l.scope !== undefined && /\.dex$/i.test(l.scope))
        .map((l) => `${l.scope} (${l.message})`),
    ];
    const also = unread.length === 0 ? '' : ` ${unread.length} DEX file(s) could not be read: ${unread.join('; ')}.`;
    throw new ReaError(
      'not_found',
      `No class ${descriptor} is defined in the package's DEX files${unread.length === 0 ? '' : ' that were read'}.${also}`,
      {
        details: { reason: 'no-such-class', class: descriptor, unread_dex: unread.length },
        remediation:
          unread.length === 0
            ? 'Find the class with search_android_classes.'
            : 'Find the class with search_android_classes; the unread DEX files may define it.',
      },
    );
  }
  return { ...site, descriptor };
}

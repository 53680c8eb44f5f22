// A folder of split APKs (base.apk and its config or feature splits, as `adb pull` of an installed app
// or a bundletool `build-apks` output gives them): each `.apk` directly in the folder is read from its
// ZIP central directory like a lone APK and becomes one unit of an APK set, named by its file name.
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ReaError, fileSystemError, isReaError, throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { loadZipDirectly } from './direct.js';
import type { LoadedPackage, LoadedUnit } from './load.js';

/** Most APKs read from one folder (an installed app has a handful of splits). */
export const MAX_FOLDER_APKS = 256;

const APK = /\.apk$/i;

function unsupported(path: string, reason: string, message: string, extra: Record<string, string[]> = {}): ReaError {
  return new ReaError('unsupported_target', message, {
    details: { path, reason, format: 'directory', ...extra },
    remediation:
      'Pass a folder holding base.apk and its split APKs (as `adb pull` of an installed package gives them), or one .apk, .aab, .xapk/.apks or .dex file.',
  });
}

/** The unit of one APK of the folder: its entries and bytes renamed under `<name>!/`, as in a ZIP set. */
function renamed(name: string, unit: LoadedUnit): LoadedUnit {
  const inside = (p: string) => `${name}!/${p}`;
  return {
    ...unit,
    name,
    dex: unit.dex.map((d) => ({ path: inside(d.path), bytes: d.bytes })),
    signatureBlocks: unit.signatureBlocks.map((s) => ({ path: inside(s.path), bytes: s.bytes })),
    entries: unit.entries.map((e) => ({ ...e, path: inside(e.path) })),
  };
}

/**
 * Reads the folder at `path` as a set of split APKs. Files that are not `.apk` are ignored; an APK that
 * cannot be read is an `entry-unreadable` limitation. A folder that cannot be listed is `access_denied`
 * or `not_found`; one holding no readable APK is `unsupported_target` (reason `empty-folder`, `no-apk`
 * or `no-readable-apk`).
 */
export async function loadFolder(path: string, signal: AbortSignal | undefined): Promise<LoadedPackage> {
  const names = await readdir(path).catch((error: unknown) => {
    throw fileSystemError(error, path, 'list the folder');
  });
  if (names.length === 0) throw unsupported(path, 'empty-folder', `The folder ${path} is empty: it holds no APK.`);
  const apks = names.filter((n) => APK.test(n)).sort((a, b) => a.localeCompare(b, 'en'));
  if (apks.length === 0) {
    throw unsupported(path, 'no-apk', `The folder ${path} holds no .apk file.`, { entries: names.sort().slice(0, 20) });
  }
  const limitations: Limitation[] = [];
  if (apks.length > MAX_FOLDER_APKS) {
    limitations.push({
      kind: 'entries-cut',
      message: `${apks.length} APKs; the first ${MAX_FOLDER_APKS} by name are read.`,
    });
  }
  const units: LoadedUnit[] = [];
  const digests: string[] = [];
  let size = 0;
  const unreadable = (name: string, why: string) =>
    limitations.push({ kind: 'entry-unreadable', message: `Not read: ${why}.`, scope: name });
  for (const name of apks.slice(0, MAX_FOLDER_APKS)) {
    throwIfAborted(signal, 'reading');
    const file = join(path, name);
    try {
      const info = await stat(file);
      if (!info.isFile()) {
        unreadable(name, 'it is not a regular file');
        continue;
      }
      const one = await loadZipDirectly(file, signal);
      if (one === null || one.format !== 'apk') {
        unreadable(name, 'it is not a readable ZIP holding an AndroidManifest.xml');
        continue;
      }
      units.push(renamed(name, one.units[0]!));
      limitations.push(
        ...one.limitations.map((l) => ({ ...l, scope: l.scope === undefined ? name : `${name}!/${l.scope}` })),
      );
      digests.push(`${one.subject.sha256}  ${name}\n`);
      size += one.subject.size;
    } catch (error) {
      if (isReaError(error) && error.code === 'cancelled') throw error;
      unreadable(name, isReaError(error) ? error.message : fileSystemError(error, file, 'read').message);
    }
  }
  if (units.length === 0) {
    const why = limitations.filter((l) => l.kind === 'entry-unreadable').map((l) => `${l.scope}: ${l.message}`);
    throw unsupported(path, 'no-readable-apk', `No APK in the folder ${path} could be read (${why.join('; ')}).`, {
      unreadable: apks.slice(0, 20),
    });
  }
  return {
    // The folder's digest: of its APKs' digests and names, so two folders holding the same APKs agree.
    subject: { format: 'directory', sha256: createHash('sha256').update(digests.join('')).digest('hex'), size },
    format: 'apk-set',
    units,
    signingBlock: null,
    limitations,
  };
}

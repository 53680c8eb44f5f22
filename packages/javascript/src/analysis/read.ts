// Reading the application through @rea/artifact: the inventory (with its integrity policy and budgets)
// says what exists; the bytes of the files the analysis needs come from the directory itself, or from
// a fresh extraction of the archive that holds them, removed before this returns.
import { createHash } from 'node:crypto';
import { lstat, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ReaError, isReaError, throwIfAborted } from '@rea/evidence';
import type { Coverage, Limitation } from '@rea/evidence';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import type { ArtifactEntry, IntegrityContradiction, IntegrityPolicy } from '@rea/artifact';

import { MAX_FILE_BYTES } from '../limits.js';

export { MAX_FILE_BYTES };

/** What the analysis reads of an application. */
export interface ApplicationInput {
  format: 'directory' | 'asar' | 'zip' | 'file';
  subject: { format: string; sha256: string; size: number };
  entries: ArtifactEntry[];
  contradictions: IntegrityContradiction[];
  /** Bytes of the entries the analysis reads, by logical path. */
  contents: Map<string, Buffer>;
  /** Entries that were not read, with why. */
  unread: { path: string; kind: string; message: string }[];
  inventoryCoverage: Coverage;
  inventoryLimitations: Limitation[];
}

/** Files of a directory read at once. */
const READ_CONCURRENCY = 16;

const CONTENT = /\.(?:[cm]?js|html?|map)$/i;

/** True for an entry whose bytes the analysis reads (scripts, HTML, source maps, manifests). */
export function needsContent(path: string): boolean {
  const name = basename(path.split('!/').at(-1)!);
  return name === 'package.json' || CONTENT.test(name);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function fromDisk(root: string, entry: ArtifactEntry): Promise<Buffer | string> {
  const file = join(root, entry.path);
  const info = await lstat(file).catch(() => null);
  if (info === null || !info.isFile()) return 'The file changed or vanished after it was inventoried.';
  const bytes = await readFile(file);
  return entry.sha256 !== null && sha256(bytes) !== entry.sha256 ? 'The file changed after it was inventoried.' : bytes;
}

/** Entries an extraction refuses for their paths alone before the rest of that archive goes unread. */
const MAX_REFUSED_PER_ARCHIVE = 16;

/** The selected entry an extraction refused for its path alone (unsafe, or colliding with another), or null. */
function refusedEntry(error: unknown, selected: readonly string[]): string | null {
  if (!isReaError(error) || error.details?.['reason'] !== 'unsafe-path') return null;
  const path = error.details['path'];
  return typeof path === 'string' && selected.includes(path) ? path : null;
}

/**
 * Reads `paths` of `archive` from a fresh extraction of them. An entry the extraction refuses for its
 * path (one that differs from another only in letter case, one that would land outside the extraction
 * directory, …) is left unread with why, and the others are extracted without it: one such entry (a
 * real archive may hold both index.html and Index.html) does not stop the analysis of everything else.
 */
async function fromArchive(
  archive: string,
  paths: string[],
  policy: IntegrityPolicy,
  signal: AbortSignal | undefined,
  into: Map<string, Buffer>,
  prefix: string,
  unread: ApplicationInput['unread'],
): Promise<void> {
  let selected = paths;
  let outputDirectory: string | null = null;
  for (let refused = 0; outputDirectory === null && selected.length > 0;) {
    try {
      ({ outputDirectory } = await extractArtifact(archive, {
        select: selected,
        integrityPolicy: policy,
        ...(signal ? { signal } : {}),
      }));
    } catch (error) {
      const path = refusedEntry(error, selected);
      if (path === null) throw ownAdvice(error);
      const details = (error as ReaError).details!;
      const other =
        typeof details['other'] === 'string'
          ? ` (it differs only in letter case from ${JSON.stringify(details['other'])})`
          : '';
      unread.push({
        path: prefix + path,
        kind: 'unsafe-path',
        message: `The archive's extraction refuses it: ${String(details['problem'] ?? 'unsafe path').replace(/-/g, ' ')}${other}; not analyzed.`,
      });
      selected = selected.filter((p) => p !== path);
      refused += 1;
      if (refused === MAX_REFUSED_PER_ARCHIVE && selected.length > 0) {
        for (const rest of selected)
          unread.push({
            path: prefix + rest,
            kind: 'not-read',
            message: `The archive's extraction refused ${refused} of its entries for their paths; the rest were not read.`,
          });
        return;
      }
    }
  }
  if (outputDirectory === null) return;
  try {
    for (const path of selected) {
      throwIfAborted(signal, 'reading');
      into.set(prefix + path, await readFile(join(outputDirectory, path)));
    }
  } finally {
    await rm(outputDirectory, { recursive: true, force: true });
  }
}

/**
 * An integrity mismatch from the archive read, its advice naming this analysis: the archive tools name
 * themselves ("rerun inspect_artifact with integrity_policy …"), which is not what the user called.
 */
function ownAdvice(error: unknown): unknown {
  if (!isReaError(error) || error.code !== 'artifact_integrity_mismatch') return error;
  const own = (text: string) =>
    text.replace(/rerun (inspect|extract)_artifact with/g, 'rerun analyze_javascript_application with');
  return new ReaError(error.code, own(error.message), {
    details: error.details,
    remediation: own(error.remediation),
    cause: error,
  });
}

/**
 * Inventories `path` with @rea/artifact under `policy` and reads the entries the analysis needs.
 * Contradicted entries are never read. Errors are those of `inspectArtifact` and `extractArtifact`
 * (`not_found`, `unsupported_target`, `artifact_integrity_mismatch`, `cancelled`, …); a DMG is
 * `unsupported_target`.
 */
export async function readApplication(
  path: string,
  policy: IntegrityPolicy,
  signal: AbortSignal | undefined,
): Promise<ApplicationInput> {
  const outcome = await inspectArtifact(path, { integrityPolicy: policy, ...(signal ? { signal } : {}) }).catch(
    (error: unknown) => {
      throw ownAdvice(error);
    },
  );
  const format = outcome.inventory.format;
  if (format === 'dmg') {
    throw new ReaError('unsupported_target', `${path} is a disk image; analyze the application inside it.`, {
      details: { path, format, reason: 'disk-image' },
      remediation: 'Mount the image and pass the application folder or its app.asar.',
    });
  }
  const contents = new Map<string, Buffer>();
  const unread: ApplicationInput['unread'] = [];
  const wanted: ArtifactEntry[] = [];
  for (const entry of outcome.inventory.entries) {
    if (entry.kind !== 'file' || !needsContent(entry.path)) continue;
    if (entry.integrity === 'contradicted') {
      unread.push({
        path: entry.path,
        kind: 'integrity-contradicted',
        message: 'Its bytes contradict their declared integrity; not analyzed.',
      });
    } else if (entry.size > MAX_FILE_BYTES) {
      unread.push({
        path: entry.path,
        kind: 'file-too-large',
        message: `Larger than ${MAX_FILE_BYTES} bytes; not analyzed.`,
      });
    } else if (entry.sha256 === null) {
      unread.push({ path: entry.path, kind: 'not-read', message: 'The inventory could not read it.' });
    } else {
      wanted.push(entry);
    }
  }
  // Group what lives inside archives by the outermost archive, so each is extracted once.
  const byArchive = new Map<string, string[]>();
  const onDisk: ArtifactEntry[] = [];
  for (const entry of wanted) {
    const cut = entry.path.indexOf('!/');
    if (format === 'file') {
      contents.set(entry.path, await readFile(path));
    } else if (format === 'directory' && cut < 0) {
      onDisk.push(entry);
    } else {
      const [archive, inner] =
        format === 'directory' ? [entry.path.slice(0, cut), entry.path.slice(cut + 2)] : ['', entry.path];
      const list = byArchive.get(archive);
      if (list === undefined) byArchive.set(archive, [inner]);
      else list.push(inner);
    }
  }
  // Files of a directory are read a few at a time: one at a time, each read waits a full turn of the
  // file-system thread pool, which dominates for an application of many small files.
  for (let at = 0; at < onDisk.length; at += READ_CONCURRENCY) {
    throwIfAborted(signal, 'reading');
    const batch = onDisk.slice(at, at + READ_CONCURRENCY);
    const read = await Promise.all(batch.map((entry) => fromDisk(path, entry)));
    batch.forEach((entry, i) => {
      const bytes = read[i]!;
      if (typeof bytes === 'string') unread.push({ path: entry.path, kind: 'changed-during-analysis', message: bytes });
      else contents.set(entry.path, bytes);
    });
  }
  for (const [archive, paths] of byArchive) {
    throwIfAborted(signal, 'reading');
    if (archive === '') await fromArchive(path, paths, policy, signal, contents, '', unread);
    else await fromArchive(join(path, archive), paths, policy, signal, contents, `${archive}!/`, unread);
  }
  return {
    format,
    subject: outcome.subject,
    entries: outcome.inventory.entries,
    contradictions: outcome.inventory.integrity_contradictions,
    contents,
    unread,
    inventoryCoverage: outcome.coverage,
    inventoryLimitations: outcome.limitations,
  };
}

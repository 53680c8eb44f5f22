import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReaError, throwIfAborted } from '@rea/evidence';
import { containerFromHead, tailHasZipEnd } from '../detect.js';
import { readAsarHeader } from '../engine/asar.js';
import type { AsarNode } from '../engine/asar.js';
import type { ZipEntryInfo, ZipReader } from '../engine/zip.js';
import { contradictionRecord, integrityMismatch } from '../integrity.js';
import type { ObservedContradiction } from '../integrity.js';
import { readAsarEntry } from '../inventory/asarEntry.js';
import { readDirectory, readZipEntry } from '../inventory/zip.js';
import type { ExtractOptions } from '../options.js';
import { logicalPath } from '../paths.js';
import type { ExtractionResult, IntegrityPolicy } from '../schemas.js';
import { fileSource } from '../source.js';
import type { ByteSource } from '../source.js';
import { plan } from './plan.js';
import type { PlannedEntry } from './plan.js';
import { StagedWriter } from './writer.js';
import { open } from 'node:fs/promises';

/** What extraction produced: the fresh directory (machine-local) and the result. */
export interface ExtractOutcome {
  outputDirectory: string;
  result: ExtractionResult;
}

const MAX_EXTRACT_ENTRIES = 1_000_000;

type Reader = (
  entry: PlannedEntry<unknown>,
  write: (chunk: Buffer) => Promise<void>,
) => Promise<{ size: number; sha256: string | null; contradiction: ObservedContradiction | null }>;

async function detect(path: string): Promise<'zip' | 'asar'> {
  const info = await stat(path).catch(() => {
    throw new ReaError('not_found', `No file at ${path}.`, { details: { path, reason: 'missing' } });
  });
  if (!info.isFile()) {
    throw new ReaError(
      'unsupported_target',
      `${path} is not an archive file; extraction reads ZIP and ASAR archives.`,
      { details: { path, format: 'directory', reason: 'not-an-archive' } },
    );
  }
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(512, info.size));
    await handle.read(head, 0, head.length, 0);
    const tailLength = Math.min(info.size, 65_557);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, info.size - tailLength);
    const format = containerFromHead(head) ?? (tailHasZipEnd(tail) ? 'zip' : null);
    if (format === null) {
      throw new ReaError('unsupported_target', `${path} is neither a ZIP nor an ASAR archive.`, {
        details: { path, format: 'unknown', reason: 'not-an-archive' },
      });
    }
    return format;
  } finally {
    await handle.close();
  }
}

async function zipPlan(
  reader: ZipReader,
  infos: ZipEntryInfo[],
  signal: AbortSignal | undefined,
): Promise<PlannedEntry<ZipEntryInfo>[]> {
  const out: PlannedEntry<ZipEntryInfo>[] = [];
  for (const info of infos) {
    const path = logicalPath(info.name);
    let linkTarget: string | null = null;
    if (info.kind === 'symlink') {
      const read = await readZipEntry(reader, info, path, { signal, collect: { upTo: 4096, containersOnly: false } });
      linkTarget = read.digest?.collected?.toString('utf8') ?? '/';
    }
    out.push({
      path,
      kind: info.kind,
      linkTarget,
      linkFromRoot: false,
      executable: ((info.mode ?? 0) & 0o111) !== 0,
      handle: info,
    });
  }
  return out;
}

function zipReader(reader: ZipReader, signal: AbortSignal | undefined): Reader {
  return async (entry, write) => {
    const info = entry.handle as ZipEntryInfo;
    if (info.encrypted || (info.compressionMethod !== 0 && info.compressionMethod !== 8)) {
      throw new ReaError(
        'unsupported_target',
        `Entry ${JSON.stringify(entry.path)} ${info.encrypted ? 'is encrypted' : `uses compression method ${info.compressionMethod}`}; it cannot be extracted.`,
        {
          details: {
            path: entry.path,
            format: 'zip',
            reason: info.encrypted ? 'encrypted-entry' : 'unsupported-compression',
          },
        },
      );
    }
    const read = await readZipEntry(reader, info, entry.path, { signal, onChunk: write });
    return { size: read.digest?.size ?? 0, sha256: read.digest?.sha256 ?? null, contradiction: read.contradiction };
  };
}

function asarPlan(nodes: AsarNode[]): PlannedEntry<AsarNode>[] {
  return nodes.map((node) => ({
    path: node.path.replace(/\\/g, '/'),
    kind: node.kind,
    linkTarget: node.link,
    linkFromRoot: true,
    executable: node.executable,
    handle: node,
  }));
}

function asarReader(source: ByteSource, companion: string, signal: AbortSignal | undefined): Reader {
  return async (entry, write) => {
    const node = entry.handle as AsarNode;
    const read = await readAsarEntry(source, companion, node, entry.path, { signal, onChunk: write });
    if (read.status === 'missing') {
      throw new ReaError('target_unavailable', `Unpacked entry ${entry.path} cannot be extracted: ${read.reason}.`, {
        details: { path: entry.path, reason: 'unpacked-companion-missing', unpacked: true },
        remediation: 'Extract from the application folder that holds the .asar.unpacked companion beside the archive.',
      });
    }
    return { size: read.digest.size, sha256: read.digest.sha256, contradiction: read.contradiction };
  };
}

/** Commits in flight at once: small files are written on the thread pool while the next is decoded. */
const WRITE_WINDOW = 32;

async function materialize(
  writer: StagedWriter,
  entries: PlannedEntry<unknown>[],
  read: Reader,
  policy: IntegrityPolicy,
  signal: AbortSignal | undefined,
): Promise<Omit<ExtractionResult, 'format' | 'integrity_policy'>> {
  const result: Omit<ExtractionResult, 'format' | 'integrity_policy'> = {
    files: [],
    skipped: [],
    integrity_contradictions: [],
  };
  const inflight = new Set<Promise<void>>();
  let failure: unknown = null;
  try {
    for (const entry of entries) {
      throwIfAborted(signal, 'extraction');
      if (failure !== null) throw failure;
      if (entry.kind === 'directory') writer.directory(entry.path);
      if (entry.kind === 'symlink') result.skipped.push({ path: entry.path, reason: 'symlinks are not materialized' });
      if (entry.kind !== 'file') continue;
      const file = writer.open(entry.path, entry.executable);
      let observed: Awaited<ReturnType<Reader>>;
      try {
        observed = await read(entry, (chunk) => file.write(chunk));
        if (observed.contradiction) {
          if (policy === 'fail-closed') throw integrityMismatch(observed.contradiction, 'extract_artifact');
          result.integrity_contradictions.push(contradictionRecord(observed.contradiction, false));
        }
        if (observed.sha256 === null) throw integrityMismatch(observed.contradiction!, 'extract_artifact');
      } catch (error) {
        await file.abort();
        throw error;
      }
      const record = {
        path: entry.path,
        size: observed.size,
        sha256: observed.sha256,
        unpacked: (entry.handle as { unpacked?: unknown }).unpacked === true,
        integrity: observed.contradiction ? ('contradicted' as const) : ('verified' as const),
      };
      const commit: Promise<void> = file.commit().then(
        () => {
          result.files.push(record);
          inflight.delete(commit);
        },
        async (error: unknown) => {
          failure ??= error;
          inflight.delete(commit);
          await file.abort();
        },
      );
      inflight.add(commit);
      if (inflight.size >= WRITE_WINDOW) await Promise.race(inflight);
    }
  } finally {
    // Every write settles before returning or failing, so cleanup never races a late write.
    await Promise.allSettled([...inflight]);
  }
  if (failure !== null) throw failure;
  return result;
}

/**
 * Extracts the selected regular files of a ZIP or ASAR archive into a fresh directory (mode 0700) that
 * this call creates, and reports it. Unsafe entries are refused before anything is written; on any
 * failure the directory is removed, so nothing partial is left presented as complete.
 */
export async function extract(path: string, options: ExtractOptions = {}): Promise<ExtractOutcome> {
  const policy = options.integrityPolicy ?? 'fail-closed';
  const format = await detect(path);
  const parent = options.parentDirectory ?? tmpdir();
  const root = await mkdtemp(join(parent, 'rea-extract-'));
  const staging = await mkdtemp(join(parent, '.rea-staging-'));
  const writer = new StagedWriter(root, staging);
  try {
    let body: Omit<ExtractionResult, 'format' | 'integrity_policy'>;
    if (format === 'zip') {
      const { reader, infos } = await readDirectory(path, MAX_EXTRACT_ENTRIES);
      try {
        if (reader.entryCount > infos.length) {
          throw new ReaError(
            'resource_constraint',
            `The archive declares ${reader.entryCount} entries; extraction handles at most ${MAX_EXTRACT_ENTRIES}.`,
            {
              details: { resource: 'memory', limit: MAX_EXTRACT_ENTRIES, observed: reader.entryCount },
            },
          );
        }
        const chosen = plan(await zipPlan(reader, infos, options.signal), options.select);
        body = await materialize(
          writer,
          chosen as PlannedEntry<unknown>[],
          zipReader(reader, options.signal),
          policy,
          options.signal,
        );
      } finally {
        reader.close();
      }
    } else {
      const source = await fileSource(path);
      try {
        const header = await readAsarHeader(source, MAX_EXTRACT_ENTRIES);
        if (header.truncated) {
          throw new ReaError('resource_constraint', `The archive holds more than ${MAX_EXTRACT_ENTRIES} entries.`, {
            details: { resource: 'memory', limit: MAX_EXTRACT_ENTRIES },
          });
        }
        const chosen = plan(asarPlan(header.entries), options.select);
        body = await materialize(
          writer,
          chosen as PlannedEntry<unknown>[],
          asarReader(source, `${path}.unpacked`, options.signal),
          policy,
          options.signal,
        );
      } finally {
        await source.close();
      }
    }
    body.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { outputDirectory: root, result: { format, integrity_policy: policy, ...body } };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

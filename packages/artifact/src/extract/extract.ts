import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ReaError, fileSystemError, isReaError, throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import { unsafePath } from '../errors.js';
import type { UnsafePathProblem } from '../errors.js';
import { containerFromHead, fileTypeFromHead, holdsZipAtEnd } from '../detect.js';
import { readAsarHeader } from '../engine/asar.js';
import { contradictionRecord, integrityMismatch } from '../integrity.js';
import { readAsarEntry } from '../inventory/asarEntry.js';
import { archiveLimitations, readDirectory } from '../inventory/zip.js';
import { readZipEntry } from '../inventory/zipEntry.js';
import type { ExtractOptions } from '../options.js';
import { logicalPath, nestedPath } from '../paths.js';
import type { ExtractionResult, IntegrityPolicy } from '../schemas.js';
import { bufferSource, fileSource } from '../source.js';
import { Pacer, runCooperatively } from '../layout/cooperative.js';
import type { Work } from '../layout/cooperative.js';
import { byPath, sortInSlices } from '../sortInSlices.js';
import { noSuchEntry, planCooperatively, selectCooperatively } from './plan.js';
import type { PlannedEntry } from './plan.js';
import { OutputWriter } from './writer.js';
import { asarPlan, asarReader, zipPlan, zipReader } from './readers.js';
import type { Reader } from './readers.js';
import { DEFAULT_EXTRACT_BUDGETS, DEFAULT_MIN_FREE_BYTES, WriteBudget } from './budget.js';
import { publish } from './publish.js';
import {
  companionMissing,
  containerBytes,
  nestedEntry,
  nestedRoom,
  noContainer,
  overNestedBudget,
  refuseUnreadable,
} from './nested.js';
import type { NestedBudget } from './nested.js';
import { MAX_NESTED_BYTES, firstNamed, splitSelection } from './selection.js';

/** What extraction produced: the fresh directory (machine-local) and the result. */
export interface ExtractOutcome {
  outputDirectory: string;
  result: ExtractionResult;
  /** What the extraction left out that is not an entry: bytes of a file outside its archive. */
  limitations: Limitation[];
}

const MAX_EXTRACT_ENTRIES = 1_000_000;

async function detect(path: string): Promise<'zip' | 'asar'> {
  const info = await stat(path).catch((error: unknown) => {
    throw fileSystemError(error, path, 'read');
  });
  if (!info.isFile()) {
    throw new ReaError(
      'unsupported_target',
      `${path} is not an archive file; extraction reads ZIP and ASAR archives.`,
      {
        details: { path, format: info.isDirectory() ? 'directory' : 'special', reason: 'not-an-archive' },
        remediation:
          'Pass a ZIP-based package or an ASAR archive; inspect_artifact inventories folders and other files.',
      },
    );
  }
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(512, info.size));
    await handle.read(head, 0, head.length, 0);
    const tailLength = Math.min(info.size, 65_557);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, info.size - tailLength);
    const format = containerFromHead(head) ?? (holdsZipAtEnd(path, info.size, head, tail) ? 'zip' : null);
    if (format === null) {
      const fileType = fileTypeFromHead(head);
      const named = fileType === 'unknown' ? '' : ` (it is a ${fileType} file)`;
      throw new ReaError('unsupported_target', `${path} is neither a ZIP nor an ASAR archive${named}.`, {
        details: { path, format: fileType, reason: 'not-an-archive' },
        remediation: 'extract_artifact reads ZIP-based packages and ASAR archives; inspect_artifact lists any file.',
      });
    }
    return format;
  } finally {
    await handle.close();
  }
}

/** Commits in flight at once: small files are written on the thread pool while the next is decoded. */
const WRITE_WINDOW = 32;

async function materialize(
  writer: OutputWriter,
  entries: PlannedEntry<unknown>[],
  read: Reader,
  policy: IntegrityPolicy,
  budget: WriteBudget,
  signal: AbortSignal | undefined,
): Promise<Omit<ExtractionResult, 'format' | 'integrity_policy'>> {
  const result: Omit<ExtractionResult, 'format' | 'integrity_policy'> = {
    files: [],
    skipped: [],
    integrity_contradictions: [],
  };
  const inflight = new Set<Promise<void>>();
  const pacer = new Pacer(signal);
  let failure: unknown = null;
  try {
    for (const entry of entries) {
      await pacer.turn('extraction');
      if (failure !== null) throw failure;
      if (entry.kind === 'directory') await writer.directory(entry.path);
      if (entry.kind === 'symlink') result.skipped.push({ path: entry.path, reason: 'symlinks are not materialized' });
      if (entry.kind !== 'file') continue;
      const file = writer.open(entry.path, entry.executable);
      let observed: Awaited<ReturnType<Reader>>;
      try {
        let entryWritten = 0;
        observed = await read(entry, async (chunk) => {
          // Counted before it is written: a budget is never passed, whatever the headers declared.
          await budget.charge(entry.path, chunk.length, entryWritten, entry.compressedSize);
          entryWritten += chunk.length;
          await file.write(chunk);
        });
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

type Body = Omit<ExtractionResult, 'format' | 'integrity_policy'>;

/** The extracted files in path order, sorted in slices (a cancel meanwhile is `cancelled`, phase "extraction"). */
function* sortedFiles(files: Body['files']): Work<Body['files']> {
  yield 'extraction';
  return yield* sortInSlices(files, byPath);
}

function withoutNested(budgets: ExtractOptions['budgets']): Partial<typeof DEFAULT_EXTRACT_BUDGETS> {
  const { max_nested_bytes: _nested, ...rest } = budgets ?? {};
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
}

/** One container's planned entries (paths already prefixed with the container's logical path) and reader. */
interface Job {
  entries: PlannedEntry<unknown>[];
  read: Reader;
}

/** Where a container's bytes are: the archive on disk (with its companion) or a nested one in memory. */
interface Opened {
  format: 'zip' | 'asar';
  source: string | Buffer;
  companion: string | null;
}

interface Gathering {
  signal: AbortSignal | undefined;
  policy: IntegrityPolicy;
  jobs: Job[];
  closers: Array<() => Promise<void> | void>;
  /** Nested containers stay held until every job is materialised, so their bytes share one budget. */
  nested: NestedBudget;
  limitations: Limitation[];
}

/**
 * Plans a container's entries on their own paths (so safety is judged within that container), then
 * names them, and any refusal, by their full logical paths.
 */
async function planIn<H>(
  entries: PlannedEntry<H>[],
  select: string[] | undefined,
  prefix: string,
  signal: AbortSignal | undefined,
): Promise<PlannedEntry<unknown>[]> {
  if (prefix === '') return refuseSeparators(await planCooperatively(entries, select, signal), prefix);
  let chosen: PlannedEntry<H>[];
  try {
    chosen = await planCooperatively(entries, select, signal);
  } catch (error) {
    if (!isReaError(error) || typeof error.details['path'] !== 'string') throw error;
    const full = nestedPath(prefix, error.details['path']);
    if (error.code === 'not_found') {
      throw noSuchEntry(full);
    }
    if (error.details['reason'] === 'unsafe-path')
      throw unsafePath(full, error.details['problem'] as UnsafePathProblem);
    throw error;
  }
  return refuseSeparators(chosen, prefix).map((e) => ({ ...e, path: nestedPath(prefix, e.path) }));
}

/**
 * Refuses an entry whose own name holds `!/` (`nested-separator`): written at its name, it would
 * stand where an entry of a nested container belongs (`inner.zip!/a.txt`) and be taken for it.
 */
function refuseSeparators<H>(entries: PlannedEntry<H>[], prefix: string): PlannedEntry<H>[] {
  const impostor = entries.find((e) => e.path.includes('!/'));
  if (impostor !== undefined) throw unsafePath(nestedPath(prefix, impostor.path), 'nested-separator');
  return entries;
}

function tooMany(declared: number | null): ReaError {
  return new ReaError(
    'resource_constraint',
    `The archive ${declared === null ? 'holds more than' : `declares ${declared} entries; extraction handles at most`} ${MAX_EXTRACT_ENTRIES}${declared === null ? ' entries' : ''}.`,
    {
      details: {
        resource: 'memory',
        limit: MAX_EXTRACT_ENTRIES,
        ...(declared === null ? {} : { observed: declared }),
      },
    },
  );
}

/**
 * Plans one container: its own selected entries become a job, and each selected nested container
 * (an entry named before a `!/`) is read whole — integrity checked, and counted against the call's
 * nested-bytes budget — and planned in turn.
 */
async function gather(
  opened: Opened,
  select: readonly string[] | undefined,
  prefix: string,
  depth: number,
  g: Gathering,
): Promise<void> {
  throwIfAborted(g.signal, 'extraction');
  const { direct, nested } = splitSelection(select);
  const wanted = direct === undefined || direct.length > 0;
  if (opened.format === 'zip') {
    const { reader, infos } = await readDirectory(opened.source, MAX_EXTRACT_ENTRIES, g.signal);
    g.closers.push(() => reader.close());
    if (reader.entryCount > infos.length) throw tooMany(reader.entryCount);
    g.limitations.push(...archiveLimitations(reader, prefix, 'extracted'));
    if (wanted) {
      // Only the selected entries are prepared and judged: a few files of a large archive cost those files.
      const chosen = await selectCooperatively(infos, (info) => logicalPath(info.name), direct, g.signal);
      const entries = await planIn(await zipPlan(reader, chosen, g.signal), direct, prefix, g.signal);
      g.jobs.push({ entries, read: zipReader(reader, g.signal) });
    }
    const containers = firstNamed(
      infos,
      nested,
      (i) => i.kind === 'file',
      (i) => logicalPath(i.name),
    );
    for (const [name, inner] of nested) {
      const full = nestedEntry(prefix, name, depth);
      const info = containers.get(name);
      if (info === undefined) throw noContainer(full);
      refuseUnreadable(info, full);
      // A declared size already past the room is refused before anything is inflated.
      if (info.uncompressedSize > nestedRoom(g.nested)) throw overNestedBudget(full, info.uncompressedSize, g.nested);
      const read = await readZipEntry(reader, info, full, {
        signal: g.signal,
        collect: { upTo: nestedRoom(g.nested), containersOnly: true },
      });
      const bytes = containerBytes(full, read.digest, read.contradiction, g.policy, g.nested);
      await gather({ ...bytes, companion: null }, inner, full, depth + 1, g);
    }
    return;
  }
  const source = typeof opened.source === 'string' ? await fileSource(opened.source) : bufferSource(opened.source);
  g.closers.push(() => source.close());
  const header = await readAsarHeader(source, MAX_EXTRACT_ENTRIES, g.signal);
  if (header.truncated) throw tooMany(null);
  if (wanted) {
    const entries = await planIn(asarPlan(header.entries), direct, prefix, g.signal);
    g.jobs.push({ entries, read: asarReader(source, opened.companion, g.signal) });
  }
  const containers = firstNamed(
    header.entries,
    nested,
    (n) => n.kind === 'file',
    (n) => n.path.replace(/\\/g, '/'),
  );
  for (const [name, inner] of nested) {
    const full = nestedEntry(prefix, name, depth);
    const node = containers.get(name);
    if (node === undefined) throw noContainer(full);
    if (node.size > nestedRoom(g.nested)) throw overNestedBudget(full, node.size, g.nested);
    const read = await readAsarEntry(source, opened.companion, node, full, {
      signal: g.signal,
      collectUpTo: nestedRoom(g.nested),
    });
    if (read.status === 'missing') throw companionMissing(full, read.reason);
    const bytes = containerBytes(full, read.digest, read.contradiction, g.policy, g.nested);
    await gather({ ...bytes, companion: null }, inner, full, depth + 1, g);
  }
}

/**
 * Extracts the selected regular files of a ZIP or ASAR archive into a fresh directory (mode 0700) that
 * this call creates, and reports it. A selected path may reach into nested containers
 * (`lib/inner.zip!/a.txt`, `resources/app.asar!/main.js`); such files are written at that logical path.
 * Every selected nested container is held in memory until the call ends, so together they may hold
 * at most `max_nested_bytes` (default 256 MiB); past it the call is refused with `resource_constraint`.
 * Unsafe entries are refused before anything is written; on any failure the directory is removed,
 * so nothing partial is left presented as complete.
 */
export async function extract(path: string, options: ExtractOptions = {}): Promise<ExtractOutcome> {
  const policy = options.integrityPolicy ?? 'fail-closed';
  const format = await detect(path);
  // Destinations are judged as absolute paths under the output folder, so the folder is absolute too.
  const parent = resolve(options.parentDirectory ?? tmpdir());
  const root = await mkdtemp(join(parent, 'rea-extract-')).catch((error: unknown) => {
    throw fileSystemError(error, parent, 'create the extraction folder in');
  });
  const writer = new OutputWriter(root);
  const g: Gathering = {
    signal: options.signal,
    policy,
    jobs: [],
    closers: [],
    nested: { limit: options.budgets?.max_nested_bytes ?? MAX_NESTED_BYTES, held: 0 },
    limitations: [],
  };
  try {
    await gather({ format, source: path, companion: `${path}.unpacked` }, options.select, '', 0, g);
    // Each container was judged on its own; together they must not claim the same path either.
    if (g.jobs.length > 1)
      await planCooperatively(
        g.jobs.flatMap((job) => job.entries),
        undefined,
        options.signal,
      );
    const files = g.jobs.flatMap((job) => job.entries.filter((e) => e.kind === 'file' || e.kind === 'directory'));
    // Every destination is judged (and refused when too long for the file system) before any write.
    const pacer = new Pacer(options.signal);
    for (const entry of files) {
      await pacer.turn('extraction');
      writer.destination(entry.path);
    }
    const budget = new WriteBudget(
      { ...DEFAULT_EXTRACT_BUDGETS, ...withoutNested(options.budgets) },
      parent,
      options.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES,
    );
    const regular = files.filter((e) => e.kind === 'file');
    await budget.checkPlan(regular);
    const body: Body = { files: [], skipped: [], integrity_contradictions: [] };
    for (const job of g.jobs) {
      const part = await materialize(writer, job.entries, job.read, policy, budget, options.signal);
      // Concatenated, not spread: a part may list more files than a call takes arguments.
      body.files = body.files.concat(part.files);
      body.skipped = body.skipped.concat(part.skipped);
      body.integrity_contradictions = body.integrity_contradictions.concat(part.integrity_contradictions);
    }
    body.files = await runCooperatively(sortedFiles(body.files), options.signal);
    const key = await options.outputKey;
    const outputDirectory = key === undefined ? root : await publish(root, join(parent, `rea-extract-${key}`));
    return { outputDirectory, result: { format, integrity_policy: policy, ...body }, limitations: g.limitations };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  } finally {
    for (const close of g.closers.reverse()) await close();
  }
}

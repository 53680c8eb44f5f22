import { statfs } from 'node:fs/promises';
import { ReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';

/** What one extraction may write; a request may raise any of them. */
export interface ExtractBudgets {
  /** Bytes written across all files (default 2 GiB). */
  max_bytes: number;
  /** Files written (default 100,000). */
  max_entries: number;
  /**
   * Largest ratio of an entry's written bytes to its compressed bytes (default 200); checked once an
   * entry has written more than 1 MiB, so small, very compressible files are never refused.
   */
  max_ratio: number;
}

/** One file to write, as its container declares it. */
export interface PlannedSize {
  path: string;
  declaredSize: number;
  /** Null when the container stores it without compression (no ratio to judge). */
  compressedSize: number | null;
}

/** Defaults that keep a hostile archive from filling a laptop's disk. */
export const DEFAULT_EXTRACT_BUDGETS: Readonly<ExtractBudgets> = Object.freeze({
  max_bytes: 2 * 1024 ** 3,
  max_entries: 100_000,
  max_ratio: 200,
});

/** Free space extraction leaves on the output's file system (default 256 MiB). */
export const DEFAULT_MIN_FREE_BYTES = 256 * 1024 ** 2;

/** Bytes an entry may write before its compression ratio is judged. */
const RATIO_FLOOR = 1024 ** 2;
/** Bytes written between two looks at the free space. */
const FREE_SPACE_EVERY = 64 * 1024 ** 2;

/** What a refusal leaves: this call's own output directory is removed; earlier outputs are separate directories. */
const NOTHING_KEPT =
  "Nothing this call wrote was kept (its own output directory was removed); earlier extractions' directories are untouched.";

function overBudget(
  budget: string,
  limit: number,
  observed: number,
  message: string,
  extra: JsonObject = {},
): ReaError {
  return new ReaError('resource_constraint', message, {
    details: { resource: 'disk', budget, limit, observed, ...extra },
    remediation:
      budget === 'min_free_bytes'
        ? `${NOTHING_KEPT} Free disk space, or extract fewer entries with select.`
        : `${NOTHING_KEPT} Raise budgets.${budget} if the archive is trusted, or extract fewer entries with select.`,
  });
}

/**
 * Counts what an extraction writes against its budgets and the free space of the output's file
 * system, and refuses (`resource_constraint`, `details.resource: "disk"`, `details.budget` naming
 * the budget, `details.limit` and `details.observed`) before a write would pass one.
 */
export class WriteBudget {
  private written = 0;
  private sinceFreeCheck = 0;

  constructor(
    readonly limits: ExtractBudgets,
    private readonly directory: string,
    private readonly minFree: number,
  ) {}

  /**
   * Before writing: the number of files, the sizes their headers declare, and each file's declared
   * ratio of its size to its compressed size (a declared bomb is refused with its declared ratio).
   */
  async checkPlan(entries: readonly PlannedSize[]): Promise<void> {
    const { max_entries, max_bytes, max_ratio } = this.limits;
    const files = entries.length;
    let declaredBytes = 0;
    for (const { path, declaredSize, compressedSize } of entries) {
      declaredBytes += declaredSize;
      if (compressedSize === null || declaredSize <= RATIO_FLOOR) continue;
      if (declaredSize > max_ratio * Math.max(compressedSize, 1)) {
        const ratio = Math.floor(declaredSize / Math.max(compressedSize, 1));
        throw overBudget(
          'max_ratio',
          max_ratio,
          ratio,
          `Entry ${path} declares ${declaredSize} bytes from ${compressedSize} compressed bytes, ${ratio} times; extraction allows at most ${max_ratio} (max_ratio).`,
          { path, declared_size: declaredSize, compressed_size: compressedSize },
        );
      }
    }
    if (files > max_entries)
      throw overBudget(
        'max_entries',
        max_entries,
        files,
        `The selection holds ${files} files; extraction writes at most ${max_entries} (max_entries).`,
      );
    if (declaredBytes > max_bytes)
      throw overBudget(
        'max_bytes',
        max_bytes,
        declaredBytes,
        `The selected files declare ${declaredBytes} bytes; extraction writes at most ${max_bytes} (max_bytes).`,
      );
    await this.checkFree(declaredBytes);
  }

  /** Before writing `length` more bytes of `path`, which has written `entryWritten` so far. */
  async charge(path: string, length: number, entryWritten: number, compressedSize: number | null): Promise<void> {
    const { max_bytes, max_ratio } = this.limits;
    if (this.written + length > max_bytes) {
      throw overBudget(
        'max_bytes',
        max_bytes,
        this.written + length,
        `Extraction would write more than ${max_bytes} bytes (max_bytes); stopped at ${path}.`,
        { path },
      );
    }
    const entryBytes = entryWritten + length;
    if (compressedSize !== null && entryBytes > RATIO_FLOOR && entryBytes > max_ratio * Math.max(compressedSize, 1)) {
      // Stopped as soon as the ratio is passed: the entry's whole ratio may be far higher than observed.
      const ratio = Math.floor(entryBytes / Math.max(compressedSize, 1));
      throw overBudget(
        'max_ratio',
        max_ratio,
        ratio,
        `Entry ${path} passed ${max_ratio} times its ${compressedSize} compressed bytes (max_ratio) after ${entryBytes} bytes and was stopped there, more than its header declared; its whole expansion was not measured.`,
        { path, compressed_size: compressedSize },
      );
    }
    this.written += length;
    this.sinceFreeCheck += length;
    if (this.sinceFreeCheck >= FREE_SPACE_EVERY) {
      this.sinceFreeCheck = 0;
      await this.checkFree(0);
    }
  }

  private async checkFree(needed: number): Promise<void> {
    const info = await statfs(this.directory).catch(() => null);
    // A file system that cannot report its free space is not refused for it.
    if (info === null) return;
    const free = Number(info.bavail) * Number(info.bsize);
    if (free - needed < this.minFree) {
      throw overBudget(
        'min_free_bytes',
        this.minFree,
        free - needed,
        `Extraction would leave ${Math.max(0, free - needed)} bytes free on the file system of ${this.directory}; it keeps at least ${this.minFree} free.`,
        { path: this.directory, free },
      );
    }
  }
}

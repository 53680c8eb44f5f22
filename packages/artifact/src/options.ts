import type { ProcessSupervisor } from '@rea/provider-kit';
import type { DmgOptions } from './engine/dmg.js';
import type { ExtractBudgets } from './extract/budget.js';
import type { IntegrityPolicy, InventoryBudgets } from './schemas.js';

/** Default budgets: generous for real packages, bounded for hostile ones. */
export const DEFAULT_BUDGETS: Readonly<InventoryBudgets> = Object.freeze({
  max_depth: 4,
  max_entries: 100_000,
  max_bytes: 8 * 1024 ** 3,
  max_nested_bytes: 256 * 1024 ** 2,
});

/** Options of {@link inspectArtifact}. */
export interface InspectOptions {
  /** Integrity policy; default `fail-closed`. */
  integrityPolicy?: IntegrityPolicy;
  /** Budgets; unset fields take {@link DEFAULT_BUDGETS}. */
  budgets?: Partial<InventoryBudgets>;
  /** Cancellation: checked between entries and between chunks while hashing. */
  signal?: AbortSignal;
  /** Host platform (DMG needs macOS); default `process.platform`. */
  platform?: NodeJS.Platform;
  /** How DMG images are attached: the hdiutil executable and its deadline. */
  dmg?: DmgOptions;
  /**
   * The supervisor that owns hdiutil runs, the mount and its directory (a tool call's
   * `context.supervisor`); its owner closes it. Default: one made and closed for each image.
   */
  supervisor?: ProcessSupervisor;
  /** Receives a status line every 1,000 entries (what was observed, never a percentage). */
  onProgress?: (message: string) => void;
}

/** Options of {@link extractArtifact}. */
export interface ExtractOptions {
  /** Integrity policy; default `fail-closed`. */
  integrityPolicy?: IntegrityPolicy;
  /** Logical paths to extract (regular files, or directories meaning everything below); default all. */
  select?: readonly string[];
  /** Parent of the fresh output directory; default the OS temporary directory. */
  parentDirectory?: string;
  /** Cancellation: checked between entries and between chunks. */
  signal?: AbortSignal;
  /**
   * Budgets of extraction. `max_nested_bytes` (default {@link DEFAULT_BUDGETS}) bounds the bytes of
   * nested containers held in memory by one call, summed over every selected nested container (each
   * is held whole until the call ends); past it the call is refused with `resource_constraint`
   * (`details.budget: "max_nested_bytes"`, `details.path` naming the container).
   */
  budgets?: Partial<Pick<InventoryBudgets, 'max_nested_bytes'> & ExtractBudgets>;
  /**
   * Free space (bytes) the extraction leaves on the output's file system, checked before and while
   * writing (default 256 MiB); below it the call is refused with `resource_constraint`
   * (`details.budget: "min_free_bytes"`) and what was written is removed.
   */
  minFreeBytes?: number;
  /**
   * Names the output directory `rea-extract-<outputKey>` under the parent instead of a fresh random
   * name when nothing holds that name yet. An earlier output (or anything else) at that name is never
   * replaced: the call then keeps its fresh random name, so every call still has a directory of its
   * own. The key may be a promise (of a digest still being computed): it is awaited only once every
   * file is written, and its rejection fails the call (the output is removed).
   */
  outputKey?: string | Promise<string>;
}

/** Fills unset budget fields from the defaults. */
export function resolveBudgets(budgets: Partial<InventoryBudgets> | undefined): InventoryBudgets {
  return { ...DEFAULT_BUDGETS, ...(budgets ?? {}) };
}

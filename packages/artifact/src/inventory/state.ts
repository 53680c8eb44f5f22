import type { Limitation } from '@rea/evidence';
import { contradictionRecord, integrityMismatch } from '../integrity.js';
import { Pacer } from '../layout/cooperative.js';
import { nestedPath, outwardThroughLinks } from '../paths.js';
import type { ContainedLink } from '../paths.js';
import type { CompanionReader } from './asarEntry.js';
import type { ObservedContradiction } from '../integrity.js';
import type {
  ArtifactEntry,
  ContainerFormat,
  IntegrityContradiction,
  IntegrityPolicy,
  InventoryBudgets,
  NestedContainer,
} from '../schemas.js';

/** Expands a nested container held in memory (set by the orchestrator to avoid import cycles). */
export type NestedExpander = (
  state: InventoryState,
  bytes: Buffer,
  format: Exclude<ContainerFormat, 'directory' | 'dmg' | 'file'>,
  prefix: string,
  depth: number,
  companion: CompanionReader | null,
) => Promise<void>;

/** Mutable state of one inventory: entries, contradictions, budgets spent, coverage reasons. */
export class InventoryState {
  readonly entries: ArtifactEntry[] = [];
  readonly contradictions: IntegrityContradiction[] = [];
  readonly nested: NestedContainer[] = [];
  readonly reasons: string[] = [];
  /** The reasons already listed: an archive can give tens of thousands (one per unsafe name). */
  private readonly reasonSet = new Set<string>();
  readonly limitations: Limitation[] = [];
  bytesRead = 0;
  /** Bytes of nested containers held in memory along the current expansion chain. */
  heldBytes = 0;
  entryBudgetHit = false;
  /** Logical paths listed so far: a second entry at one path is flagged, never silently merged. */
  private readonly paths = new Set<string>();
  /** Gives the event loop a turn between entries every few milliseconds, and checks the signal. */
  readonly pacer: Pacer;
  /** The symlinks of each container (by its logical path), whose chains are resolved once all are listed. */
  private readonly links = new Map<string, { kind: 'archive' | 'directory'; links: ContainedLink[] }>();

  constructor(
    readonly policy: IntegrityPolicy,
    readonly budgets: InventoryBudgets,
    readonly signal: AbortSignal | undefined,
    readonly expand: NestedExpander,
    private readonly onProgress?: (message: string) => void,
  ) {
    this.pacer = new Pacer(signal);
  }

  /** Entries that may still be listed before the entry budget is reached. */
  remainingEntries(): number {
    return Math.max(0, this.budgets.max_entries - this.entries.length);
  }

  /** Records one entry; false (and partial coverage, once) when the entry budget is exhausted. */
  add(entry: ArtifactEntry): boolean {
    if (this.entries.length >= this.budgets.max_entries) {
      this.entryBudget(entry.path);
      return false;
    }
    if (this.paths.has(entry.path)) {
      this.partial(
        `entry path ${JSON.stringify(entry.path)} is listed more than once; the entries cannot be told apart by path`,
        'duplicate-path',
        entry.path,
      );
    } else this.paths.add(entry.path);
    this.entries.push(entry);
    if (this.onProgress && this.entries.length % 1000 === 0) {
      this.onProgress(`${this.entries.length} entries inventoried, ${this.bytesRead} bytes hashed`);
    }
    return true;
  }

  /** Marks the entry budget as reached (once) naming where it was reached. */
  entryBudget(where: string): void {
    if (this.entryBudgetHit) return;
    this.entryBudgetHit = true;
    this.partial(
      `entry budget reached: max_entries ${this.budgets.max_entries} entries were listed; later entries (from ${where}) were not`,
      'budget-reached',
      where,
    );
  }

  /** How many more bytes of a nested container may be held in memory (max_nested_bytes spans the chain). */
  nestedRoom(): number {
    return Math.max(0, this.budgets.max_nested_bytes - this.heldBytes);
  }

  /** True when `bytes` more may be read within the byte budget. */
  mayRead(bytes: number): boolean {
    return this.bytesRead + bytes <= this.budgets.max_bytes;
  }

  /** Records a symlink of the container at `prefix` (`kind` names it in messages) for {@link flagLinkChains}. */
  link(prefix: string, kind: 'archive' | 'directory', link: ContainedLink): void {
    const container = this.links.get(prefix) ?? { kind, links: [] };
    container.links.push(link);
    this.links.set(prefix, container);
  }

  /**
   * Flags (`unsafe-path`) each symlink that reaches outside its container only through another symlink
   * of it: one that points outside itself is flagged where it is listed.
   */
  flagLinkChains(): void {
    for (const [prefix, { kind, links }] of this.links) {
      for (const { path, via } of outwardThroughLinks(links)) {
        const at = nestedPath(prefix, path);
        this.partial(
          `symlink ${JSON.stringify(at)} reaches outside the ${kind} through symlink ${JSON.stringify(nestedPath(prefix, via))}; ${kind === 'archive' ? 'it cannot be extracted' : 'it was not followed'}`,
          'unsafe-path',
          at,
        );
      }
    }
  }

  /** Makes coverage partial with `reason`, and records it as a limitation. */
  partial(reason: string, kind: string, scope?: string): void {
    if (!this.reasonSet.has(reason)) {
      this.reasonSet.add(reason);
      this.reasons.push(reason);
    }
    this.limitations.push(scope === undefined ? { kind, message: reason } : { kind, message: reason, scope });
  }

  /** Applies the integrity policy: fail closed (throws) or record, quarantine and continue. */
  contradiction(observed: ObservedContradiction): void {
    if (this.policy === 'fail-closed') throw integrityMismatch(observed, 'inspect_artifact');
    this.contradictions.push(contradictionRecord(observed, true));
    this.partial(
      `integrity contradiction at ${observed.path} (${observed.algorithm}); the entry is quarantined from nested expansion`,
      'integrity-contradiction',
      observed.path,
    );
  }
}
